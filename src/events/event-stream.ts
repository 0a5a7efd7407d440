import type { ServerResponse } from 'node:http';
import type { WorkflowExecutionStatus } from '../schema/schema-types.generated.js';

/** The executions a stream asks for (query parameters `workflowUUID` and `status`). */
export interface StreamFilter {
  readonly workflowUuid: string | undefined;
  readonly statuses: ReadonlySet<WorkflowExecutionStatus> | undefined;
  /** Also the changes judged history (a backfill), not only live ones (`history=true`). */
  readonly history?: boolean;
}

/**
 * What a stream hands its socket at once (UTF-16 units; whole events, so one larger event goes
 * alone). A client is judged by the slices it takes: one that takes a slice at least every two
 * heartbeats is never cut, however long one poll's events take it over a slow link.
 */
const SLICE = 64 * 1024;

/**
 * One open `GET /events` response. Writes never queue without bound: the events of one poll go
 * out slice by slice, each once the socket has taken the last; while a slice waits the stream is
 * paused and the hub reads nothing more for it (its cursor stays at the last event queued, so
 * nothing is lost: it reads on from the feed when drained). One that has taken nothing for longer
 * than `slowMs` is closed.
 */
export class EventStream {
  /** The id of the last change this stream has passed (queued or filtered out). */
  after: number;
  /** Slices of one poll's events not yet handed to the socket. */
  private readonly queue: string[] = [];
  private waitingForDrain = false;
  /** When the socket last took a slice, or the stream paused. */
  private progressAt = 0;
  /** Heartbeat checks in a row that have found it paused since then. */
  private checksIdle = 0;
  private closed = false;

  constructor(
    readonly organizationId: string,
    readonly keyId: string,
    readonly filter: StreamFilter,
    after: number,
    private readonly response: ServerResponse,
  ) {
    this.after = after;
    response.on('drain', () => {
      this.waitingForDrain = false;
      this.flush();
    });
  }

  get paused(): boolean {
    return this.waitingForDrain;
  }

  get isClosed(): boolean {
    return this.closed || this.response.destroyed;
  }

  /** Queues `texts` (whole events or comments, in order) and hands the socket what it takes now. */
  write(texts: readonly string[]): void {
    if (this.isClosed) return;
    let slice = '';
    for (const text of texts) {
      slice += text;
      if (slice.length >= SLICE) {
        this.queue.push(slice);
        slice = '';
      }
    }
    if (slice !== '') this.queue.push(slice);
    this.flush();
  }

  private flush(): void {
    while (!this.waitingForDrain && this.queue.length > 0 && !this.isClosed) {
      if (!this.response.write(this.queue.shift()!)) {
        this.waitingForDrain = true;
        this.progressAt = Date.now();
        this.checksIdle = 0;
      }
    }
  }

  /**
   * One heartbeat check: whether its client has stopped reading, that is taken no slice for
   * longer than `slowMs`. Each call counts as a check, and only two checks in a row may cut it:
   * when this process was busy (a long batch, a loaded machine) the client's reads wait behind
   * that same check, and it must get the event loop's next turn before a later check may judge it.
   */
  checkStalled(now: number, slowMs: number): boolean {
    if (!this.waitingForDrain) return false;
    this.checksIdle++;
    return this.checksIdle > 1 && now - this.progressAt > slowMs;
  }

  /**
   * Ends the response with a last message (`text`, whole), dropping what its socket has not taken
   * yet. A client whose socket is full would not read it soon: its connection is cut instead.
   */
  finish(text: string): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    if (this.waitingForDrain) this.response.destroy();
    else this.response.end(text);
  }

  /** Ends the response cleanly (server shutdown) or cuts it (a stalled client). */
  close(cut = false): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    if (cut) this.response.destroy();
    else this.response.end();
  }
}
