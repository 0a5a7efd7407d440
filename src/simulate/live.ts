/**
 * Live mode: the world keeps producing what happens as wall-clock time passes. Each batch is the
 * window (previous until, now], so batches never overlap or leave gaps, executions appear as
 * IN_PROGRESS when they start and complete when they finish, and a consumer that falls behind
 * (a slow upload, a laptop waking up) catches up in steps of bounded size.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { IngestRecord } from '../ingest/records.js';
import { recordsBetween, type WindowOptions } from './stream.js';
import type { World } from './world.js';

export interface LiveOptions extends WindowOptions {
  readonly signal: AbortSignal;
  /** Wait between batches when caught up, in milliseconds (default 1000). */
  readonly tickMs?: number;
  /** Largest window of one batch while catching up (default 10 minutes). */
  readonly maxStepMs?: number;
  readonly now?: () => number;
}

export interface LiveBatch {
  /** The batch holds every record due in (after, until]. */
  readonly after: number;
  readonly until: number;
  readonly records: readonly IngestRecord[];
}

/** Batches from `after` on, until the signal aborts; the batch in hand when it does is complete. */
export async function* liveBatches(
  world: World,
  after: number,
  options: LiveOptions,
): AsyncGenerator<LiveBatch> {
  const tickMs = options.tickMs ?? 1000;
  const maxStepMs = options.maxStepMs ?? 600_000;
  const now = options.now ?? Date.now;
  let cursor = after;
  while (!options.signal.aborted) {
    const behind = now() - cursor;
    if (behind < tickMs) {
      try {
        await sleep(tickMs - behind, undefined, { signal: options.signal });
      } catch {
        return;
      }
      continue;
    }
    const until = cursor + Math.min(behind, maxStepMs);
    yield { after: cursor, until, records: [...recordsBetween(world, cursor, until, options)] };
    cursor = until;
  }
}
