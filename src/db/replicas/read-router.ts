import type { AbortWatch, Database } from '../database.js';
import { withFallback } from './fallback.js';
import { lagOf, type PrimarySample, readReplay, samplePrimary } from './replica-lag.js';

/** Why a replica answers no reads now. */
export type SkipReason = 'not checked yet' | 'unreachable' | 'lagging' | 'not a standby';

/** One database as `/readyz` reports it. */
export interface DatabaseStatus {
  readonly role: 'primary' | 'replica';
  /** host:port/database, without credentials. */
  readonly address: string;
  readonly up: boolean;
  /** Replicas: how far behind the primary at the last check; null when unknown. */
  readonly lagMs?: number | null;
  /** Primary: always (writes); replica: it answers reads now. */
  readonly inUse: boolean;
  /** Primary: it answers the reads too (no replica in use). */
  readonly servesReads?: boolean;
  readonly skipped?: SkipReason;
}

/** Where one request reads. */
export interface RoutedRead {
  readonly db: Database;
  /**
   * Everything the primary had committed by this time is in what `db` answers; undefined when
   * `db` is the primary itself.
   */
  readonly completeUpTo: Date | undefined;
}

export interface ReplicaOptions {
  readonly maxLagMs: number;
  /** How often the replicas' health and lag are measured. */
  readonly checkEveryMs?: number;
  /** A check waits this long for a database before counting it unreachable. */
  readonly checkTimeoutMs?: number;
  /** Told when a replica starts or stops answering reads. */
  readonly onChange?: (address: string, inUse: boolean, reason: SkipReason | undefined) => void;
}

/** A replica's database: `db` answers reads, `probe` (one connection of its own) the checks. */
export interface ReplicaHandle {
  readonly db: Database;
  readonly probe: Database;
  readonly address: string;
}

interface Replica extends ReplicaHandle {
  up: boolean;
  lagMs: number | null;
  completeUpTo: Date | null;
  skipped: SkipReason | undefined;
}

/** Primary WAL samples kept: enough to measure a lag a bit past any sensible bound. */
const MAX_SAMPLES = 600;

export function addressOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Picks the database each `/graphql` request reads from: the least-loaded replica in use (fewest
 * connections busy or awaited, ties taken in turn), or the primary when none is. A background
 * check, every `checkEveryMs`, measures each replica's lag (see replica-lag.ts) and skips one
 * that does not answer, is not a standby, or lags more than `maxLagMs`, until it recovers. A
 * query that finds its replica gone is answered by the primary and the replica is skipped at once.
 * Everything that writes (ingestion, administration, key usage) and authentication stays on the
 * primary and never comes here.
 */
export class ReadRouter {
  private readonly replicas: Replica[];
  private readonly samples: PrimarySample[] = [];
  private turn = 0;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  /**
   * `primaryProbe` and each replica's `probe` are connections of the checks' own, so that a pool
   * saturated by reads cannot delay a check into calling its database unreachable; they are
   * closed with the router, as are the replicas (not the primary).
   */
  constructor(
    readonly primary: Database,
    private readonly primaryProbe: Database | undefined,
    readonly primaryAddress: string,
    replicas: readonly ReplicaHandle[],
    private readonly options: ReplicaOptions,
  ) {
    this.replicas = replicas.map((handle) => ({
      ...handle,
      up: false,
      lagMs: null,
      completeUpTo: null,
      skipped: 'not checked yet',
    }));
  }

  get hasReplicas(): boolean {
    return this.replicas.length > 0;
  }

  /** Checks once now, then every `checkEveryMs`. */
  async start(): Promise<void> {
    if (!this.hasReplicas) return;
    await this.check();
    this.timer = setInterval(() => void this.check(), this.options.checkEveryMs ?? 1000);
    this.timer.unref();
  }

  /** The database of one request, its queries refused once `signal` aborts. */
  forRequest(signal: AbortWatch): RoutedRead {
    const replica = this.pick();
    const primary = this.primary.abortable(signal);
    if (!replica) return { db: primary, completeUpTo: undefined };
    return {
      db: withFallback(replica.db.abortable(signal), primary, (error) => this.lost(replica, error)),
      completeUpTo: replica.completeUpTo ?? undefined,
    };
  }

  /** Each database, primary first, as of the last check (the primary's `up` is the caller's to say). */
  status(primaryUp: boolean): DatabaseStatus[] {
    const reading = this.replicas.some((replica) => replica.skipped === undefined);
    return [
      {
        role: 'primary',
        address: this.primaryAddress,
        up: primaryUp,
        inUse: true,
        servesReads: !reading,
      },
      ...this.replicas.map(
        (replica): DatabaseStatus => ({
          role: 'replica',
          address: replica.address,
          up: replica.up,
          lagMs: replica.lagMs,
          inUse: replica.skipped === undefined,
          ...(replica.skipped && { skipped: replica.skipped }),
        }),
      ),
    ];
  }

  /** Measures every replica once (a check already running is awaited instead). */
  check(): Promise<void> {
    this.checking ??= this.measure().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
    await Promise.all([
      this.primaryProbe?.close(),
      ...this.replicas.flatMap((replica) => [replica.db.close(), replica.probe.close()]),
    ]);
  }

  private pick(): Replica | undefined {
    let best: Replica | undefined;
    let bestLoad = Number.POSITIVE_INFINITY;
    const count = this.replicas.length;
    this.turn = (this.turn + 1) % Math.max(1, count);
    for (let i = 0; i < count; i++) {
      const replica = this.replicas[(this.turn + i) % count]!;
      if (replica.skipped !== undefined) continue;
      const use = replica.db.poolUse?.();
      const load = use ? use.open - use.idle + use.waiting : 0;
      if (load < bestLoad) {
        best = replica;
        bestLoad = load;
      }
    }
    return best;
  }

  private lost(replica: Replica, _error: unknown): void {
    replica.up = false;
    this.set(replica, 'unreachable');
  }

  private set(replica: Replica, skipped: SkipReason | undefined): void {
    if (replica.skipped === skipped) return;
    const wasInUse = replica.skipped === undefined;
    replica.skipped = skipped;
    if (wasInUse !== (skipped === undefined)) this.options.onChange?.(replica.address, !wasInUse, skipped);
  }

  private async measure(): Promise<void> {
    const timeoutMs = this.options.checkTimeoutMs ?? 2000;
    // The primary first: a replica read after it that has reached its position holds all of it.
    const sample = await withTimeout(samplePrimary(this.primaryProbe ?? this.primary), timeoutMs).catch(
      () => undefined,
    );
    if (sample) {
      this.samples.push(sample);
      if (this.samples.length > MAX_SAMPLES) this.samples.shift();
    }
    await Promise.all(
      this.replicas.map(async (replica) => {
        const replay = await withTimeout(readReplay(replica.probe), timeoutMs).catch(() => undefined);
        replica.up = replay !== undefined;
        if (!replay) return this.set(replica, 'unreachable');
        if (!replay.inRecovery) return this.set(replica, 'not a standby');
        // Without a fresh primary sample (the primary is down) the last measured lag stands.
        if (sample) {
          const lag = lagOf(this.samples, replay);
          replica.lagMs = Number.isFinite(lag.ms) ? Math.round(lag.ms) : null;
          replica.completeUpTo = lag.completeUpTo;
        }
        const lagging = replica.lagMs === null || replica.lagMs > this.options.maxLagMs;
        this.set(replica, lagging ? 'lagging' : undefined);
      }),
    );
  }
}
