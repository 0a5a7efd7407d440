/**
 * Every rollup kept in step with one batch, in the batch's transaction: what each written
 * execution state and each new event line adds, minus what the states they replaced had added.
 * The caller holds the organizations' ingestion locks and read the replaced states under them, so
 * the deltas are exact whatever the arrival order: the rollups always equal a recount of the raw
 * rows (test/ingest/dataset.ts `rollupDrift` checks exactly that).
 */
import type { Transaction } from '../db/database.js';
import { toUnits } from '../lib/decimal.js';
import { binOf } from '../rollups/duration-bins.js';
import { durations, EXECUTION_LEVEL } from '../rollups/durations.rollup.js';
import { ANY_LEVEL, errorGroupCounts } from '../rollups/error-groups.rollup.js';
import { executionCounts } from '../rollups/execution-counts.rollup.js';
import { errorGroupOf } from '../rollups/fingerprint.js';
import { EVERY_WORKFLOW } from '../rollups/rollup.js';
import { RollupDeltas } from '../rollups/rollup-deltas.js';
import { raiseRollupVersions } from '../rollups/rollup-versions.store.js';
import { addToOrganizationRows, applyDeltas } from '../rollups/rollup-writer.store.js';
import { refreshDurationExtremes } from './duration-extremes.store.js';
import {
  type ErrorRow,
  type ErrorRowsByExecution,
  readErrorRows,
  upsertErrorGroups,
  writeErrorRows,
} from './error-index.store.js';
import type { ExecutionChange, ExecutionState } from './execution-upsert.store.js';
import type { DaysByOrganization } from './log-days.store.js';
import { callOutcome, type StoredEvent } from './stored-events.store.js';

/** What a batch wrote, as the rollups need it. */
export interface BatchChanges {
  /** Workflows stored for the first time: they make their executions visible. */
  readonly newWorkflows: ReadonlyArray<{ readonly organizationId: string; readonly uuid: string }>;
  readonly executions: readonly ExecutionChange[];
  /** Each execution the batch refers to, in its state after the batch (absent: not stored). */
  readonly states: ReadonlyMap<string, ExecutionState>;
  /** Events stored before the batch, of executions that became known or changed workflow in it. */
  readonly earlierEvents: ReadonlyMap<string, readonly StoredEvent[]>;
  /** Event lines stored now. */
  readonly newEvents: readonly StoredEvent[];
  /** The days whose searchable log lines changed (log-days.store.ts): their versions are raised too. */
  readonly logDays: DaysByOrganization;
}

export interface RollupOutcome {
  /** Error groups the organization had never seen before this batch. */
  readonly newErrorGroups: ReadonlyArray<{
    readonly organizationId: string;
    readonly fingerprint: string;
    readonly workflowUuid: string;
    /** The start (ms) of the execution that carried its earliest sighting. */
    readonly firstSeenAt: number;
  }>;
  /** The workflows this batch's executions name that are not stored (their rows are not visible yet). */
  readonly unstoredWorkflows: ReadonlyArray<{
    readonly organizationId: string;
    readonly workflowUuid: string;
  }>;
}

const durationOf = (from: Date, to: Date | null) =>
  to === null ? null : Math.max(0, to.getTime() - from.getTime());

/** Where an execution's error occurrences count: its start and workflow, once it is known. */
interface Attribution {
  readonly organizationId: string;
  readonly workflowUuid: string;
  readonly startedAt: number;
}

const attributionOf = (state: ExecutionState | undefined): Attribution | undefined =>
  state && {
    organizationId: state.organizationId,
    workflowUuid: state.workflowUUID,
    startedAt: state.startedAt.getTime(),
  };

const moved = (a: Attribution | undefined, b: Attribution | undefined) =>
  a?.workflowUuid !== b?.workflowUuid || a?.startedAt !== b?.startedAt;

async function visibleWorkflows(
  tx: Transaction,
  pairs: ReadonlyArray<readonly [organizationId: string, workflowUuid: string]>,
): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const rows = await tx.query<{ organization_id: string; uuid: string }>(
    `select w.organization_id, w.uuid from workflows w
     join unnest($1::uuid[], $2::uuid[]) as k(organization_id, uuid)
       on w.organization_id = k.organization_id and w.uuid = k.uuid`,
    [pairs.map(([organizationId]) => organizationId), pairs.map(([, uuid]) => uuid)],
  );
  return new Set(rows.map((row) => `${row.organization_id}/${row.uuid}`));
}

export async function maintainRollups(tx: Transaction, changes: BatchChanges): Promise<RollupOutcome> {
  const eventWorkflow = (event: StoredEvent) => changes.states.get(event.executionUuid)?.workflowUUID;
  const touched = new Map<string, readonly [string, string]>();
  const touch = (organizationId: string, workflowUuid: string | undefined) => {
    if (workflowUuid !== undefined)
      touched.set(`${organizationId}/${workflowUuid}`, [organizationId, workflowUuid]);
  };
  for (const { previous, next } of changes.executions) {
    if (previous) touch(previous.organizationId, previous.workflowUUID);
    touch(next.organizationId, next.workflowUUID);
  }
  for (const event of changes.newEvents) touch(event.organizationId, eventWorkflow(event));
  const visible = await visibleWorkflows(tx, [...touched.values()]);

  // Workflows that became visible join the organization-wide rows first, with what they had so far.
  const newByOrganization = new Map<string, string[]>();
  for (const { organizationId, uuid } of changes.newWorkflows) {
    newByOrganization.set(organizationId, [...(newByOrganization.get(organizationId) ?? []), uuid]);
  }
  for (const [organizationId, uuids] of newByOrganization) {
    await addToOrganizationRows(tx, durations, organizationId, uuids);
  }

  const counts = new RollupDeltas(executionCounts);
  const timing = new RollupDeltas(durations);
  const addTiming = (
    organizationId: string,
    workflowUuid: string,
    time: number,
    capabilityId: string,
    status: string,
    ms: number | null,
    sign: 1 | -1,
  ) => {
    const contribution = {
      item_count: 1,
      ...(ms === null
        ? {}
        : {
            finished_count: 1,
            duration_sum_ms: ms,
            duration_min_ms: ms,
            duration_max_ms: ms,
            duration_bins: { bin: binOf(ms) },
          }),
    };
    const targets = visible.has(`${organizationId}/${workflowUuid}`)
      ? [workflowUuid, EVERY_WORKFLOW]
      : [workflowUuid];
    for (const target of targets) {
      timing.add(
        organizationId,
        time,
        { workflow_uuid: target, capability_id: capabilityId, status },
        contribution,
        sign,
      );
    }
  };
  const addExecution = (state: ExecutionState, sign: 1 | -1) => {
    counts.add(
      state.organizationId,
      state.startedAt.getTime(),
      { workflow_uuid: state.workflowUUID, status: state.status },
      {
        execution_count: 1,
        tee_count: state.executedInTee ? 1 : 0,
        credit_used: toUnits(state.creditUsed),
      },
      sign,
    );
    // Durations count finished executions only.
    const ms = durationOf(state.startedAt, state.finishedAt);
    if (ms !== null) {
      addTiming(
        state.organizationId,
        state.workflowUUID,
        state.startedAt.getTime(),
        EXECUTION_LEVEL,
        state.status,
        ms,
        sign,
      );
    }
  };
  const addCall = (event: StoredEvent, workflowUuid: string, sign: 1 | -1) =>
    addTiming(
      event.organizationId,
      workflowUuid,
      event.startedAt.getTime(),
      event.capabilityId,
      callOutcome(event),
      durationOf(event.startedAt, event.finishedAt),
      sign,
    );

  for (const { previous, next } of changes.executions) {
    if (previous) addExecution(previous, -1);
    addExecution(next, 1);
    // Calls count under their execution's workflow: earlier events follow it when it is new or moves.
    for (const event of changes.earlierEvents.get(next.uuid) ?? []) {
      if (previous) addCall(event, previous.workflowUUID, -1);
      addCall(event, next.workflowUUID, 1);
    }
  }
  for (const event of changes.newEvents) {
    const workflowUuid = eventWorkflow(event);
    if (workflowUuid !== undefined) addCall(event, workflowUuid, 1);
  }

  const errors = await maintainErrorIndex(tx, changes);
  await applyDeltas(tx, counts);
  const stale = await applyDeltas(tx, timing);
  await refreshDurationExtremes(tx, stale);
  await applyDeltas(tx, errors.deltas);
  // In the batch's transaction, after its rows: readers' kept answers of these days are now stale.
  await raiseRollupVersions(tx, errors.deltas.days(timing.days(counts.days(changes.logDays))));
  const unstored = new Map<string, { organizationId: string; workflowUuid: string }>();
  for (const { next } of changes.executions) {
    const key = `${next.organizationId}/${next.workflowUUID}`;
    if (!visible.has(key))
      unstored.set(key, { organizationId: next.organizationId, workflowUuid: next.workflowUUID });
  }
  return { newErrorGroups: errors.newGroups, unstoredWorkflows: [...unstored.values()] };
}

/**
 * Keeps each execution's error groups (execution_error_groups) and their rollup in step: an
 * execution whose own errors change, whose events bring errors, or which moves (in time, to
 * another workflow, or from unknown to known) takes its old contribution away and adds its new one.
 */
async function maintainErrorIndex(tx: Transaction, changes: BatchChanges) {
  const deltas = new RollupDeltas(errorGroupCounts);
  const before = new Map<string, Attribution | undefined>();
  const after = new Map<string, Attribution | undefined>();
  const organizationOf = new Map<string, string>();
  /** Messages seen, for each group's pattern, sample and first and last sighting. */
  const sightings: Array<{ organizationId: string; workflowUuid: string; message: string; at: number }> = [];
  const ownErrors = new Map<string, readonly ErrorRow[]>();

  for (const { previous, next } of changes.executions) {
    const hadErrors = (previous?.errors?.length ?? 0) > 0 || (next.errors?.length ?? 0) > 0;
    const earlier = changes.earlierEvents.get(next.uuid) ?? [];
    const relocated = previous !== undefined && moved(attributionOf(previous), attributionOf(next));
    if (!hadErrors && !relocated && !earlier.some((event) => event.errors.length > 0)) continue;
    before.set(next.uuid, attributionOf(previous));
    after.set(next.uuid, attributionOf(next));
    organizationOf.set(next.uuid, next.organizationId);
    ownErrors.set(next.uuid, errorRows(next.errors ?? [], ''));
    for (const { error } of next.errors ?? []) {
      sightings.push({
        organizationId: next.organizationId,
        workflowUuid: next.workflowUUID,
        message: error,
        at: next.startedAt.getTime(),
      });
    }
    for (const event of earlier) {
      for (const { error } of event.errors) {
        sightings.push({
          organizationId: next.organizationId,
          workflowUuid: next.workflowUUID,
          message: error,
          at: next.startedAt.getTime(),
        });
      }
    }
  }
  const eventErrors = new Map<string, ErrorRow[]>();
  for (const event of changes.newEvents) {
    if (event.errors.length === 0) continue;
    const uuid = event.executionUuid;
    const state = changes.states.get(uuid);
    if (!before.has(uuid)) {
      before.set(uuid, attributionOf(state));
      after.set(uuid, attributionOf(state));
    }
    organizationOf.set(uuid, event.organizationId);
    eventErrors.set(uuid, [...(eventErrors.get(uuid) ?? []), ...errorRows(event.errors, event.capabilityId)]);
    if (state) {
      for (const { error } of event.errors) {
        sightings.push({
          organizationId: state.organizationId,
          workflowUuid: state.workflowUUID,
          message: error,
          at: state.startedAt.getTime(),
        });
      }
    }
  }
  if (organizationOf.size === 0) return { deltas, newGroups: [] };

  const stored = await readErrorRows(tx, organizationOf);
  const next: ErrorRowsByExecution = new Map();
  for (const uuid of organizationOf.keys()) {
    const rows = new Map<string, ErrorRow>();
    const keep = (row: ErrorRow) => {
      const id = `${row.fingerprint}/${row.capabilityId}`;
      const current = rows.get(id);
      rows.set(id, { ...row, occurrences: (current?.occurrences ?? 0) + row.occurrences });
    };
    const own = ownErrors.get(uuid);
    const storedRows = stored.get(uuid)?.rows ?? [];
    for (const row of storedRows) if (own === undefined || row.capabilityId !== '') keep(row);
    for (const row of own ?? []) keep(row);
    for (const row of eventErrors.get(uuid) ?? []) keep(row);
    const was = before.get(uuid);
    const now = after.get(uuid);
    const nextRows = [...rows.values()];
    next.set(uuid, { startedAt: now?.startedAt ?? null, rows: nextRows });
    if (was) addErrorRows(deltas, was, storedRows, -1);
    if (now) addErrorRows(deltas, now, nextRows, 1);
  }
  await writeErrorRows(tx, organizationOf, stored, next);
  const newGroups = await upsertErrorGroups(tx, sightings);
  return { deltas, newGroups };
}

/** An error list's rows at one level: occurrences summed per group. */
function errorRows(
  errors: ReadonlyArray<{ error: string; count: number }>,
  capabilityId: string,
): ErrorRow[] {
  const rows = new Map<string, ErrorRow>();
  for (const { error, count } of errors) {
    const { fingerprint } = errorGroupOf(error);
    rows.set(fingerprint, {
      fingerprint,
      capabilityId,
      occurrences: (rows.get(fingerprint)?.occurrences ?? 0) + count,
    });
  }
  return [...rows.values()];
}

/** One execution's contribution: each (group, level) row, and each group once at any level. */
function addErrorRows(
  deltas: RollupDeltas<'workflow_uuid' | 'fingerprint' | 'capability_id', typeof errorGroupCounts.measures>,
  at: Attribution,
  rows: readonly ErrorRow[],
  sign: 1 | -1,
): void {
  const anyLevel = new Map<string, number>();
  for (const row of rows) {
    deltas.add(
      at.organizationId,
      at.startedAt,
      { workflow_uuid: at.workflowUuid, fingerprint: row.fingerprint, capability_id: row.capabilityId },
      { occurrences: row.occurrences, execution_count: 1 },
      sign,
    );
    anyLevel.set(row.fingerprint, (anyLevel.get(row.fingerprint) ?? 0) + row.occurrences);
  }
  for (const [fingerprint, occurrences] of anyLevel) {
    deltas.add(
      at.organizationId,
      at.startedAt,
      { workflow_uuid: at.workflowUuid, fingerprint, capability_id: ANY_LEVEL },
      { occurrences, execution_count: 1 },
      sign,
    );
  }
}
