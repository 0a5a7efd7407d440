/**
 * The records a world produces in a time window, lazily and in time order across workflows.
 * A window (after, until] holds every fact that becomes known in it: registrations and
 * deployments at their time; an execution when it starts (as IN_PROGRESS, if it is still running
 * at `until`) or when it finishes (its final record); each event and log line when it is due.
 * Consecutive windows therefore produce every fact exactly once, and the history up to `until`
 * followed by any sequence of live windows equals the same facts in one piece: the basis of
 * `--live`, of the demo's gap filling and of loading the newest days first.
 */
import type { IngestRecord } from '../ingest/records.js';
import { type Arrival, arrivals } from './arrivals.js';
import { deploymentTimeline } from './deployments.js';
import { buildExecution, type Detail, dueAt, inProgress, MAX_EXECUTION_MS } from './execution.js';
import { mergeSorted } from './merge.js';
import type { World } from './world.js';

export interface WindowOptions {
  /** Detail of an execution's timeline by its start; `full` when absent. */
  readonly detail?: (startedAt: number) => Detail;
}

/** Counts of what a stream produced so far, by record type. */
export type RecordCounts = Record<IngestRecord['type'], number>;

export function emptyCounts(): RecordCounts {
  return { workflow: 0, deployment: 0, execution: 0, log: 0, event: 0 };
}

export function totalRecords(counts: RecordCounts): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/** Every record due in (after, until]; `after = -Infinity` gives the whole history up to `until`. */
export function* recordsBetween(
  world: World,
  after: number,
  until: number,
  options: WindowOptions = {},
): Generator<IngestRecord> {
  const detail = options.detail ?? (() => 'full' as const);
  const timeline = deploymentTimeline(world, after, until);
  let next = 0;
  const starts = mergeSorted(
    world.workflows.map((workflow) => arrivals(world, workflow, after - MAX_EXECUTION_MS, until)),
    (arrival: Arrival) => arrival.startedAt,
  );
  for (const arrival of starts) {
    while (next < timeline.length && timeline[next]!.time <= arrival.startedAt)
      yield* timeline[next++]!.records;
    const built = buildExecution(world, arrival, detail(arrival.startedAt));
    if (built.finishedAt <= after) continue;
    if (built.finishedAt <= until) yield built.execution;
    else if (built.startedAt > after) yield inProgress(built.execution);
    for (const child of built.children) {
      const due = dueAt(child);
      if (due > after && due <= until) yield child;
    }
  }
  while (next < timeline.length) yield* timeline[next++]!.records;
}
