import { LRUCache } from 'lru-cache';
/**
 * Deployment histories. A workflow is registered and deployed at `registeredAt`; from the
 * plan's start on, each UTC day may bring one change during working hours: a redeploy, a pause
 * followed by an activation hours later, or a deploy that fails (an error message, no
 * transaction) and is fixed by a successful one minutes later. Executions run only while the
 * latest deployment is ACTIVE. Every change ends before 04:00 the next day, so whether a
 * workflow runs at an instant depends on that day's change and the previous day's only.
 */
import type { DeploymentRecord, WorkflowRecord } from '../ingest/records.js';
import { DAY, HOUR, MINUTE } from '../lib/time.js';
import { randomFor } from './prng.js';
import { DEPLOY_ERRORS } from './vocabulary.js';
import { type SimWorkflow, STREAM, type World } from './world.js';

const CHANGE_PROBABILITY = 0.05;

/**
 * What a redeploy does to the executions after it, through the end of the next UTC day (or until
 * the workflow's next change): nothing, a new error that fails a share of them, or slower runs.
 * Drawn from a stream of its own, so the timeline of changes is the same with or without it.
 */
export type Regression = 'none' | 'errors' | 'slower';

export interface DeploymentChange {
  readonly kind: 'redeploy' | 'pause' | 'failed';
  /** Redeploys only: what the new version does. */
  readonly regression: Regression;
  readonly at: number;
  /** When the workflow runs again after a pause or a failed deploy. */
  readonly resumeAt: number | undefined;
  readonly records: readonly DeploymentRecord[];
}

/** A moment of the deployment timeline and the records it produces, in order. */
export interface TimedRecords {
  readonly time: number;
  readonly workflowIndex: number;
  readonly records: readonly (WorkflowRecord | DeploymentRecord)[];
}

/** Each workflow's change of the days drawn last (a replay walks days in order). */
const cache = new WeakMap<SimWorkflow, LRUCache<number, { readonly change: DeploymentChange | undefined }>>();

/** The change of a workflow on a UTC day (days since the epoch), if any. Memoised per workflow. */
export function changeOnDay(world: World, workflow: SimWorkflow, day: number): DeploymentChange | undefined {
  let days = cache.get(workflow);
  if (!days) {
    days = new LRUCache({ max: 64 });
    cache.set(workflow, days);
  }
  const known = days.get(day);
  if (known) return known.change;
  const change = drawChange(world, workflow, day);
  days.set(day, { change });
  return change;
}

function drawChange(world: World, workflow: SimWorkflow, day: number): DeploymentChange | undefined {
  const r = randomFor(world.seed, STREAM.deployments, workflow.index, day);
  if (!r.chance(CHANGE_PROBABILITY)) return undefined;
  const kind = r.weighted([
    ['redeploy', 5],
    ['pause', 3],
    ['failed', 2],
  ] as const);
  const at = Math.floor(day * DAY + 8 * HOUR + r.between(0, 10 * HOUR));
  if (at < world.start || at < workflow.registeredAt + DAY) return undefined;
  const deployment = (
    status: DeploymentRecord['status'],
    deployedAt: number,
    fields: { txHash: boolean; artifacts: boolean; errorMessage?: string },
  ): DeploymentRecord => {
    const uuid = r.uuid();
    const txHash = fields.txHash ? `0x${r.hex(64)}` : null;
    const folder = workflow.initialDeployment.binaryURL.replace(/[^/]+\/binary\.wasm\.br$/, r.hex(12));
    return {
      type: 'deployment',
      organizationId: world.plan.organizationId,
      uuid,
      workflowUUID: workflow.uuid,
      status,
      deployedAt: new Date(deployedAt),
      txHash,
      errorMessage: fields.errorMessage ?? null,
      binaryURL: fields.artifacts ? `${folder}/binary.wasm.br` : null,
      configURL: fields.artifacts ? `${folder}/config.json` : null,
    };
  };
  if (kind === 'redeploy') {
    const regression = randomFor(world.seed, STREAM.regressions, workflow.index, day).weighted([
      ['none', 4],
      ['errors', 4],
      ['slower', 2],
    ] as const);
    return {
      kind,
      regression,
      at,
      resumeAt: undefined,
      records: [deployment('ACTIVE', at, { txHash: true, artifacts: true })],
    };
  }
  if (kind === 'pause') {
    // Pausing and activating are transactions on the registry; the binary stays as it was.
    const resumeAt = Math.floor(at + r.between(30 * MINUTE, 10 * HOUR));
    return {
      kind,
      regression: 'none',
      at,
      resumeAt,
      records: [
        deployment('PAUSED', at, { txHash: true, artifacts: false }),
        deployment('ACTIVE', resumeAt, { txHash: true, artifacts: false }),
      ],
    };
  }
  // A deploy refused before any transaction, then the fixed version a little later.
  const resumeAt = Math.floor(at + r.between(5 * MINUTE, 90 * MINUTE));
  const errorMessage = r.pick(DEPLOY_ERRORS)(r);
  return {
    kind,
    regression: 'none',
    at,
    resumeAt,
    records: [
      deployment('FAILED', at, { txHash: false, artifacts: true, errorMessage }),
      deployment('ACTIVE', resumeAt, { txHash: true, artifacts: true }),
    ],
  };
}

/** Whether the workflow's latest deployment is ACTIVE at `time`, i.e. it takes triggers. */
export function isRunning(world: World, workflow: SimWorkflow, time: number): boolean {
  if (time < workflow.registeredAt) return false;
  const day = Math.floor(time / DAY);
  for (const d of [day - 1, day]) {
    const change = changeOnDay(world, workflow, d);
    if (change?.resumeAt !== undefined && change.at <= time && time < change.resumeAt) return false;
  }
  return true;
}

/**
 * The regression the workflow runs with at `time`: that of its latest change of today or
 * yesterday, when it is a redeploy of a regressing version (the next day ends it: fixed in place).
 */
export function regressionAt(world: World, workflow: SimWorkflow, time: number): Regression {
  if (time < workflow.registeredAt) return 'none';
  const day = Math.floor(time / DAY);
  let latest: DeploymentChange | undefined;
  for (const d of [day - 1, day]) {
    const change = changeOnDay(world, workflow, d);
    if (change && change.at <= time) latest = change;
  }
  return latest?.regression ?? 'none';
}

export function workflowRecord(world: World, workflow: SimWorkflow): WorkflowRecord {
  return {
    type: 'workflow',
    organizationId: world.plan.organizationId,
    uuid: workflow.uuid,
    workflowId: workflow.workflowId,
    name: workflow.name,
    ownerAddress: workflow.ownerAddress,
    status: 'ACTIVE',
    registeredAt: new Date(workflow.registeredAt),
    workflowSource: workflow.source,
  };
}

function initialDeploymentRecord(world: World, workflow: SimWorkflow): DeploymentRecord {
  const { uuid, txHash, binaryURL, configURL } = workflow.initialDeployment;
  return {
    type: 'deployment',
    organizationId: world.plan.organizationId,
    uuid,
    workflowUUID: workflow.uuid,
    status: 'ACTIVE',
    deployedAt: new Date(workflow.registeredAt),
    txHash,
    errorMessage: null,
    binaryURL,
    configURL,
  };
}

/**
 * Registrations (the workflow record and its first deployment) and deployment changes that
 * happen in (after, until], in time order.
 */
export function deploymentTimeline(world: World, after: number, until: number): TimedRecords[] {
  const out: TimedRecords[] = [];
  for (const workflow of world.workflows) {
    if (workflow.registeredAt > after && workflow.registeredAt <= until) {
      out.push({
        time: workflow.registeredAt,
        workflowIndex: workflow.index,
        records: [workflowRecord(world, workflow), initialDeploymentRecord(world, workflow)],
      });
    }
  }
  const firstDay = Math.floor(Math.max(after, world.start) / DAY) - 1;
  const lastDay = Math.floor(until / DAY);
  for (let day = firstDay; day <= lastDay; day++) {
    for (const workflow of world.workflows) {
      for (const record of changeOnDay(world, workflow, day)?.records ?? []) {
        const time = record.deployedAt.getTime();
        if (time > after && time <= until)
          out.push({ time, workflowIndex: workflow.index, records: [record] });
      }
    }
  }
  return out.sort((a, b) => a.time - b.time || a.workflowIndex - b.workflowIndex);
}
