import type { ServerResponse } from 'node:http';
import type { WorkflowExecutionStatus } from '../schema/schema-types.generated.js';

/** The executions a stream asks for (query parameters `workflowUUID` and `status`). */
export interface StreamFilter {
  readonly workflowUuid: string | undefined;
  readonly statuses: ReadonlySet<WorkflowExecutionStatus> | undefined;
}

/**
 * One open `GET /events` response. Writes never queue without bound: once the socket's buffer
 * is full the stream is paused, the hub sends it nothing more (its cursor stays at the last event
 * written, so nothing is lost: it reads on from the feed when drained), and one paused for longer
 * than `slowMs` is closed.
 */
export class EventStream {
  /** The id of the last change this stream has passed (sent or filtered out). */
  after: number;
  private pausedSince: number | undefined;
  /** Heartbeat checks that have found it paused since it last drained. */
  private checksPaused = 0;
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
      this.pausedSince = undefined;
      this.checksPaused = 0;
    });
  }

  get paused(): boolean {
    return this.pausedSince !== undefined;
  }

  get isClosed(): boolean {
    return this.closed || this.response.destroyed;
  }

  /** Writes `chunk`; false when the stream is closed or its socket buffer is full (write no more until it drains). */
  write(chunk: string): boolean {
    if (this.isClosed) return false;
    if (this.response.write(chunk)) return true;
    this.pausedSince ??= Date.now();
    return false;
  }

  /**
   * One heartbeat check: whether it has been paused for longer than `slowMs` (a client not
   * reading). Each call counts as a check. A check that first finds it paused never cuts it: when
   * this process was busy (a long batch, a loaded machine) the client's reads wait behind that
   * same check, and it must get the event loop's next turn to drain before a later check may
   * judge it.
   */
  checkStalled(now: number, slowMs: number): boolean {
    if (this.pausedSince === undefined) return false;
    this.checksPaused++;
    return this.checksPaused > 1 && now - this.pausedSince > slowMs;
  }

  /** Ends the response cleanly (server shutdown) or cuts it (a stalled client). */
  close(cut = false): void {
    if (this.closed) return;
    this.closed = true;
    if (cut) this.response.destroy();
    else this.response.end();
  }
}
