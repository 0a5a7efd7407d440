import type { Queryable } from '../database.js';

/**
 * How far a streaming replica is behind its primary, measured in time without trusting either
 * side's idle clock. `pg_last_xact_replay_timestamp()` alone is misleading: on an idle primary
 * the last transaction is old, so a replica that has everything would look minutes behind. The
 * primary's WAL position is therefore sampled at each check, and a replica whose replayed
 * position has reached a sample holds everything the primary had committed at that sample's time.
 */

/** The primary's WAL position at a moment of its own clock. */
export interface PrimarySample {
  readonly lsn: bigint;
  readonly at: Date;
}

/** What a replica reports of its replay. */
export interface ReplayState {
  /** `pg_last_wal_replay_lsn()`; null when it has replayed nothing yet. */
  readonly lsn: bigint | null;
  /** Commit time (the primary's clock) of the last transaction replayed; null if none since start. */
  readonly replayedAt: Date | null;
  /** False for a database that is not a standby (a promoted replica, a wrong URL). */
  readonly inRecovery: boolean;
}

export interface Lag {
  /** Milliseconds of the primary's history the replica is missing (0: it has all of it). */
  readonly ms: number;
  /**
   * Every change the primary had committed by this time is on the replica; null when nothing
   * proves any moment (no sample reached, no transaction replayed).
   */
  readonly completeUpTo: Date | null;
}

/** `X/Y` (PostgreSQL's pg_lsn text) as one number. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/**
 * The replica's lag behind `samples` (oldest first, the newest being "now" on the primary): zero
 * when it has replayed up to the newest sample (equal positions: caught up however old the last
 * transaction), else the time since the newest moment it is known to be complete up to.
 */
export function lagOf(samples: readonly PrimarySample[], replay: ReplayState): Lag {
  const newest = samples.at(-1);
  let completeUpTo = replay.replayedAt;
  if (replay.lsn !== null) {
    for (let i = samples.length - 1; i >= 0; i--) {
      const sample = samples[i]!;
      if (replay.lsn >= sample.lsn) {
        if (completeUpTo === null || sample.at > completeUpTo) completeUpTo = sample.at;
        break;
      }
    }
  }
  if (newest === undefined) return { ms: Number.POSITIVE_INFINITY, completeUpTo };
  if (replay.lsn !== null && replay.lsn >= newest.lsn) return { ms: 0, completeUpTo: newest.at };
  const ms =
    completeUpTo === null
      ? Number.POSITIVE_INFINITY
      : Math.max(0, newest.at.getTime() - completeUpTo.getTime());
  return { ms, completeUpTo };
}

export async function samplePrimary(db: Queryable): Promise<PrimarySample> {
  const [row] = await db.query<{ lsn: string; at: Date }>(
    'select pg_current_wal_lsn()::text as lsn, clock_timestamp() as at',
  );
  return { lsn: parseLsn(row!.lsn), at: row!.at };
}

export async function readReplay(db: Queryable): Promise<ReplayState> {
  const [row] = await db.query<{ lsn: string | null; replayed_at: Date | null; in_recovery: boolean }>(
    `select pg_last_wal_replay_lsn()::text as lsn, pg_last_xact_replay_timestamp() as replayed_at,
            pg_is_in_recovery() as in_recovery`,
  );
  return {
    lsn: row!.lsn === null ? null : parseLsn(row!.lsn),
    replayedAt: row!.replayed_at,
    inRecovery: row!.in_recovery,
  };
}
