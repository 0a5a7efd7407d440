import type { Database } from '../db/database.js';
import { fromUnits, toUnits } from '../lib/decimal.js';
import {
  type ObjectiveTotalRow,
  readDataAsOf,
  readDurationHistograms,
  readExecutionTotals,
  readObjectiveTotals,
} from './platform.store.js';

/** The `workflow` label of the workflows past an organization's first `maxWorkflows`. */
export const OTHER_WORKFLOWS = 'other';

/**
 * Upper bounds (ms) of the execution duration histogram: 100 ms to about 2.8 hours. Each is a bound
 * of the rollups' bins (duration-bins.ts's display edges), so each bucket's count is exact.
 */
export const DURATION_BOUNDS_MS = [
  100, 250, 500, 1000, 2500, 5000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000,
  5_000_000, 10_000_000,
];

export interface WorkflowTotals {
  readonly organizationId: string;
  /** A workflow uuid, or OTHER_WORKFLOWS. */
  readonly workflow: string;
  /** Absent for OTHER_WORKFLOWS. */
  readonly name?: string;
  readonly byStatus: Map<string, number>;
  credit: bigint;
}

export interface WorkflowDurations {
  readonly organizationId: string;
  readonly workflow: string;
  /** Non-cumulative counts per bucket of DURATION_BOUNDS_MS, then +Inf. */
  readonly buckets: number[];
  count: number;
  sumSeconds: number;
}

/** The platform's metrics at one instant, read from the rollups. */
export interface PlatformSnapshot {
  readonly workflows: readonly WorkflowTotals[];
  readonly durations: readonly WorkflowDurations[];
  /** Each organization's freshness mark (`extensions.dataAsOf`), in ms since the epoch. */
  readonly dataAsOf: ReadonlyArray<{ organizationId: string; at: number }>;
  /** Each service level objective's finished executions of all time, and the good ones. */
  readonly objectives: readonly ObjectiveTotalRow[];
}

export const creditNumber = (units: bigint): number => Number(fromUnits(units));

/**
 * Reads the snapshot. In each organization the `maxWorkflows` workflows with the most executions
 * (ties by uuid) keep their own label; the others are summed under OTHER_WORKFLOWS, so that an
 * organization yields at most `maxWorkflows + 1` workflow label values whatever its size.
 */
export async function readPlatformSnapshot(db: Database, maxWorkflows: number): Promise<PlatformSnapshot> {
  const [rows, marks, objectives] = await Promise.all([
    readExecutionTotals(db),
    readDataAsOf(db),
    readObjectiveTotals(db),
  ]);
  const perWorkflow = new Map<string, WorkflowTotals & { total: number }>();
  for (const row of rows) {
    const key = `${row.organization_id}/${row.workflow_uuid}`;
    let totals = perWorkflow.get(key);
    if (!totals) {
      totals = {
        organizationId: row.organization_id,
        workflow: row.workflow_uuid,
        name: row.workflow_name,
        byStatus: new Map(),
        credit: 0n,
        total: 0,
      };
      perWorkflow.set(key, totals);
    }
    totals.byStatus.set(row.status, row.n);
    totals.credit += toUnits(row.credit);
    totals.total += row.n;
  }
  const ranked = [...perWorkflow.values()].sort(
    (a, b) =>
      a.organizationId.localeCompare(b.organizationId) ||
      b.total - a.total ||
      a.workflow.localeCompare(b.workflow),
  );
  const workflows: WorkflowTotals[] = [];
  const kept: Array<{ organizationId: string; workflowUuid: string }> = [];
  const others = new Map<string, WorkflowTotals>();
  let organization = '';
  let rank = 0;
  for (const totals of ranked) {
    rank = totals.organizationId === organization ? rank + 1 : 0;
    organization = totals.organizationId;
    if (rank < maxWorkflows) {
      workflows.push(totals);
      kept.push({ organizationId: totals.organizationId, workflowUuid: totals.workflow });
      continue;
    }
    let other = others.get(organization);
    if (!other) {
      other = { organizationId: organization, workflow: OTHER_WORKFLOWS, byStatus: new Map(), credit: 0n };
      others.set(organization, other);
      workflows.push(other);
    }
    for (const [status, n] of totals.byStatus)
      other.byStatus.set(status, (other.byStatus.get(status) ?? 0) + n);
    other.credit += totals.credit;
  }

  const histograms = await readDurationHistograms(db, DURATION_BOUNDS_MS, kept);
  const durations = new Map<string, WorkflowDurations>();
  const durationsOf = (organizationId: string, workflowUuid: string | null) => {
    const workflow = workflowUuid ?? OTHER_WORKFLOWS;
    const key = `${organizationId}/${workflow}`;
    let entry = durations.get(key);
    if (!entry) {
      entry = {
        organizationId,
        workflow,
        buckets: new Array(DURATION_BOUNDS_MS.length + 1).fill(0),
        count: 0,
        sumSeconds: 0,
      };
      durations.set(key, entry);
    }
    return entry;
  };
  for (const row of histograms.buckets) {
    durationsOf(row.organization_id, row.workflow_uuid).buckets[row.bucket]! += row.n;
  }
  for (const row of histograms.sums) {
    const entry = durationsOf(row.organization_id, row.workflow_uuid);
    entry.count += row.n;
    entry.sumSeconds += row.sum_ms / 1000;
  }
  return {
    workflows,
    durations: [...durations.values()],
    dataAsOf: marks.map((mark) => ({ organizationId: mark.organization_id, at: mark.data_as_of.getTime() })),
    objectives,
  };
}
