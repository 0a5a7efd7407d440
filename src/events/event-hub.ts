import type { Database } from '../db/database.js';
import { AppError } from '../errors.js';
import type { KeyRefusalReason } from '../modules/auth/authenticate.js';
import { toExecution } from '../modules/executions/execution.mapper.js';
import { AccessWatch } from './access-watch.js';
import {
  type FeedCursor,
  type FeedRow,
  pruneChanges,
  RETENTION_MS,
  readChanges,
} from './change-feed.store.js';
import type { EventStream } from './event-stream.js';
import { sseClosed, sseComment, sseEvent, wireExecution } from './sse.js';

export interface EventHubOptions {
  readonly pollMs: number;
  readonly heartbeatMs: number;
  readonly maxStreamsPerKey: number;
  /** A change is history when its execution's latest time is older than this when recorded (0: none is). */
  readonly liveWindowMs: number;
}

/** Changes read per cursor and poll; a full read polls again at once. */
const READ_LIMIT = 500;
/** How often the change feed is pruned of what no resume can ask for any more. */
const PRUNE_EVERY_MS = 3600 * 1000;
const FIRST_PRUNE_MS = 60 * 1000;
/** How often the keys of open streams are read again, for changes made through other instances. */
const ACCESS_CHECK_MS = 1000;

/**
 * Whether a change is history rather than live: its execution's latest time (its finish, else its
 * start) was more than `liveWindowMs` before ingestion recorded the change, as when weeks of past
 * executions are loaded. Judged by the recording time, so a resume judges a change as it was judged live.
 */
export function isHistory(row: FeedRow, liveWindowMs: number): boolean {
  const execution = row.execution;
  if (liveWindowMs <= 0 || !execution) return false;
  const latest = execution.finished_at ?? execution.started_at;
  return row.changedAt.getTime() - latest.getTime() > liveWindowMs;
}

/**
 * Delivers the change feed to this server's open streams. Streams of one organization that are
 * at the same cursor (the usual case: caught up) form one group, and one statement per poll
 * reads every group's changes (readChanges); each event is serialised once per group.
 *
 * An event carries the execution's state when it is sent, with section 1's fields exactly as
 * /graphql answers them. Several changes of one execution read in one poll are sent once, as the
 * latest (earlier ones would carry the same state), with the latest change's id. History
 * (isHistory) goes only to streams that ask for it; a stream whose key stops admitting it is
 * ended by the AccessWatch with a `closed` event.
 */
export class EventHub {
  private readonly streams = new Set<EventStream>();
  private readonly perKey = new Map<string, number>();
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  private prune: NodeJS.Timeout;
  private readonly access: AccessWatch<EventStream>;
  private polling = false;
  private closed = false;
  private failing = false;

  constructor(
    private readonly db: Database,
    private readonly options: EventHubOptions,
    private readonly warn: (error: unknown, message: string) => void,
  ) {
    this.heartbeat = setInterval(() => this.beat(), options.heartbeatMs).unref();
    // A minute after start, then hourly: a server restarted more often than hourly still prunes.
    const prune = () => {
      if (this.closed) return;
      pruneChanges(db, new Date(Date.now() - RETENTION_MS)).catch((error) =>
        warn(error, 'could not prune the change feed'),
      );
      this.prune = setTimeout(prune, PRUNE_EVERY_MS).unref();
    };
    this.prune = setTimeout(prune, FIRST_PRUNE_MS).unref();
    this.access = new AccessWatch(
      db,
      { everyMs: ACCESS_CHECK_MS, minGapMs: Math.min(options.pollMs, ACCESS_CHECK_MS) },
      () => this.streams,
      (stream, reason) => this.end(stream, reason),
      warn,
    );
  }

  /** Takes one of the key's stream slots, or refuses with 429 when all are held. */
  reserve(keyId: string): void {
    const held = this.perKey.get(keyId) ?? 0;
    if (held >= this.options.maxStreamsPerKey) {
      throw new AppError(
        'RATE_LIMITED',
        `Too many open event streams for this API key (at most ${this.options.maxStreamsPerKey}); close one first`,
        { headers: { 'retry-after': '1' } },
      );
    }
    this.perKey.set(keyId, held + 1);
  }

  release(keyId: string): void {
    const held = (this.perKey.get(keyId) ?? 1) - 1;
    if (held <= 0) this.perKey.delete(keyId);
    else this.perKey.set(keyId, held);
  }

  /** Adds a stream whose slot was reserved; it leaves (and frees the slot) through `remove`. */
  add(stream: EventStream): void {
    if (this.closed) {
      stream.close();
      return;
    }
    this.streams.add(stream);
    this.schedule(0);
    this.access.wake();
  }

  remove(stream: EventStream): void {
    if (this.streams.delete(stream)) this.release(stream.keyId);
  }

  /** Ends a stream whose key no longer admits it, with the `closed` event naming why. */
  private end(stream: EventStream, reason: KeyRefusalReason): void {
    stream.finish(sseClosed(reason));
    this.remove(stream);
  }

  /** Ends every stream cleanly and stops reading (server shutdown). */
  close(): void {
    this.closed = true;
    clearTimeout(this.pollTimer);
    clearInterval(this.heartbeat);
    clearTimeout(this.prune);
    this.access.close();
    for (const stream of this.streams) stream.close();
    this.streams.clear();
    this.perKey.clear();
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.polling) return;
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => void this.poll(), delayMs);
  }

  private async poll(): Promise<void> {
    this.pollTimer = undefined;
    const groups = new Map<string, EventStream[]>();
    for (const stream of this.streams) {
      // A response closed without its 'close' event reaching remove (it cannot, but a slot must never leak).
      if (stream.isClosed) this.remove(stream);
      if (stream.isClosed || stream.paused) continue;
      const key = `${stream.organizationId}/${stream.after}`;
      const group = groups.get(key);
      if (group) group.push(stream);
      else groups.set(key, [stream]);
    }
    if (groups.size === 0) {
      if (this.streams.size > 0) this.schedule(this.options.pollMs);
      return;
    }
    this.polling = true;
    let again = false;
    try {
      const cursors: FeedCursor[] = [...groups.values()].map(([first]) => ({
        organizationId: first!.organizationId,
        after: first!.after,
      }));
      const rows = await readChanges(this.db, cursors, READ_LIMIT);
      if (this.failing) this.warn(undefined, 'the change feed is readable again');
      this.failing = false;
      const byGroup = new Map<string, FeedRow[]>();
      for (const row of rows) {
        const key = `${row.organizationId}/${row.after}`;
        const list = byGroup.get(key);
        if (list) list.push(row);
        else byGroup.set(key, [row]);
      }
      for (const [key, list] of byGroup) {
        if (list.length >= READ_LIMIT) again = true;
        this.deliver(groups.get(key) ?? [], list);
      }
    } catch (error) {
      // The streams stay open at their cursors and catch up once the database answers again.
      if (!this.failing) this.warn(error, 'could not read the change feed; streams wait');
      this.failing = true;
    } finally {
      this.polling = false;
    }
    if (this.streams.size > 0) this.schedule(again ? 0 : this.options.pollMs);
  }

  /**
   * Sends one group's changes (ascending) to each of its streams, through the stream's filter, in
   * slices of many events (a system call per slice, not per event). A stream whose socket has not
   * taken all of them is paused until it has (EventStream): at most one read's events
   * (READ_LIMIT) beyond the socket's buffer are ever held per stream, and its cursor is the last
   * change queued, so nothing is lost if it is cut.
   */
  private deliver(streams: readonly EventStream[], rows: readonly FeedRow[]): void {
    const lastOf = new Map<string, number>();
    for (const row of rows) if (row.execution) lastOf.set(row.execution.uuid, row.changeId);
    const texts = new Map<number, string>();
    const textOf = (row: FeedRow): string => {
      let text = texts.get(row.changeId);
      if (text === undefined) {
        text = sseEvent(row.changeId, 'execution', wireExecution(toExecution(row.execution!)));
        texts.set(row.changeId, text);
      }
      return text;
    };
    const last = rows.at(-1);
    if (last === undefined) return;
    for (const stream of streams) {
      if (stream.isClosed) continue;
      const { workflowUuid, statuses, history } = stream.filter;
      const texts: string[] = [];
      for (const row of rows) {
        const execution = row.execution;
        // Only the latest change of an execution in this read is sent: the others carry the same state.
        if (!execution || lastOf.get(execution.uuid) !== row.changeId) continue;
        if (workflowUuid !== undefined && execution.workflow_uuid !== workflowUuid) continue;
        if (statuses !== undefined && !statuses.has(execution.status as never)) continue;
        if (!history && isHistory(row, this.options.liveWindowMs)) continue;
        texts.push(textOf(row));
      }
      // Every change read has been passed, queued or filtered out.
      stream.after = last.changeId;
      if (texts.length > 0) stream.write(texts);
    }
  }

  private beat(): void {
    const now = Date.now();
    const comment = sseComment('keep-alive');
    for (const stream of this.streams) {
      // A client that has not taken two heartbeats' worth of time to read is cut (30 s by default).
      if (stream.checkStalled(now, 2 * this.options.heartbeatMs)) {
        stream.close(true);
        this.remove(stream);
      } else if (!stream.paused) {
        stream.write([comment]);
      }
    }
  }
}
