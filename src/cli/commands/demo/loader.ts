import { INGEST_OBSERVERS } from '../../../app.js';
import type { Database } from '../../../db/database.js';
import { ingestBatch, type NumberedRecord } from '../../../ingest/ingest.store.js';
import type { IngestRecord } from '../../../ingest/records.js';
import { DAY } from '../../../lib/time.js';
import {
  deploymentTimeline,
  emptyCounts,
  type RecordCounts,
  recordsBetween,
  type WindowOptions,
  type World,
} from '../../../simulate/index.js';
import { type Interval, missingFrom, newestFirst } from './coverage.js';

/**
 * Records per transaction: large enough for throughput, small enough that a read waiting
 * behind it on the single embedded connection waits well under a second.
 */
const BATCH_RECORDS = 2500;
/**
 * Records per transaction of the load that runs while the server answers: a request waits for
 * at most the one transaction running (EmbeddedDatabase.lease), so it stays well under 1 s.
 */
export const BACKGROUND_BATCH_RECORDS = 800;

/**
 * Stores records through the one write path of platform data (ingestBatch), in batches. Every
 * record comes from the simulator, so a rejection is a bug and fails loudly.
 */
export async function storeRecords(
  db: Database,
  records: Iterable<IngestRecord>,
  counts: RecordCounts,
  signal?: AbortSignal,
  batchRecords = BATCH_RECORDS,
): Promise<boolean> {
  let batch: NumberedRecord[] = [];
  const flush = async () => {
    const result = await ingestBatch(db, batch, { observers: INGEST_OBSERVERS });
    if (result.rejected.length > 0) {
      throw new Error(
        `the demo data was rejected: line ${result.rejected[0]!.line}: ${result.rejected[0]!.error}`,
      );
    }
    for (const { record } of batch) counts[record.type]++;
    batch = [];
  };
  for (const record of records) {
    batch.push({ line: batch.length + 1, record });
    if (batch.length >= batchRecords) {
      await flush();
      if (signal?.aborted) return false;
    }
  }
  if (batch.length > 0) await flush();
  return true;
}

/**
 * Loads windows one after the other; `onWindow` runs once a window is wholly stored, so an
 * interrupted load resumes with the windows not yet marked.
 */
export async function loadWindows(
  db: Database,
  world: World,
  windows: readonly Interval[],
  options: WindowOptions & {
    signal: AbortSignal;
    onWindow(window: Interval, counts: RecordCounts): void;
    batchRecords?: number;
  },
): Promise<RecordCounts> {
  const counts = emptyCounts();
  for (const window of windows) {
    if (options.signal.aborted) break;
    const complete = await storeRecords(
      db,
      recordsBetween(world, window[0], window[1], options),
      counts,
      options.signal,
      options.batchRecords,
    );
    if (complete) options.onWindow(window, counts);
  }
  return counts;
}

/** Registrations happen up to 90 days before the simulated month: they load in one piece. */
const CATALOGUE_LEAD = 100 * DAY;

export interface LoadPlan {
  /** Registrations and deployments of every missing window: what makes the workflow list complete. */
  readonly catalogue: IngestRecord[];
  /** The missing windows, the last `days` days one day at a time newest first, then the registrations before. */
  readonly windows: Interval[];
}

/**
 * What to load to have the registrations and the last `days` days up to `now`, given what is
 * loaded. A gap older than `days` days (the demo was off for long) is left out: the data stays
 * recent without reloading months.
 */
export function planLoad(
  world: World,
  state: { loaded: readonly Interval[]; days: number },
  now: number,
): LoadPlan {
  const lead: Interval = [world.start - CATALOGUE_LEAD, world.start];
  const recent: Interval = [Math.max(world.start, now - state.days * DAY), now];
  const missing = [...missingFrom(state.loaded, recent), ...missingFrom(state.loaded, lead)];
  return {
    catalogue: missing.flatMap(([after, until]) =>
      deploymentTimeline(world, after, until).flatMap((moment) => [...moment.records]),
    ),
    windows: [...newestFirst(missingFrom(state.loaded, recent), DAY), ...missingFrom(state.loaded, lead)],
  };
}
