import type { Client } from '../../../../client/index.js';
import type { StateStore, WindowRequest } from '../export-state.js';
import { type ExportSummary, exportWindow } from '../incremental.js';
import type { ExportProgress } from '../main.js';
import { perExecution } from '../main.js';
import { batchesInWindow, type Execution } from '../window.js';
import { logRecordsOf, spansOf, type TelemetrySource, type TracedExecution } from './otlp-records.js';
import type { OtlpSender } from './otlp-sender.js';

/** Executions sent per pair of requests (one to /v1/traces, one to /v1/logs). */
const BATCH = 100;

export interface TracesRequest extends WindowRequest {
  readonly kind: 'traces';
  /** Whether log lines are read and sent as log records (`--no-logs` turns it off). */
  readonly logs: boolean;
}

export interface TracesSummary extends ExportSummary {
  readonly spans: number;
  readonly logRecords: number;
}

/**
 * One export of the window's executions as traces: for each batch of executions (oldest first),
 * their events and log lines are read through the SDK, then the batch's spans and log records
 * are sent. The state advances after the last batch was accepted, or, when `signal` stops the
 * run, to the last batch accepted (exportWindow); a resent batch carries the same ids, so a
 * backend sees the same spans again, not new ones.
 */
export async function exportTraces(
  client: Client,
  request: TracesRequest,
  store: StateStore | undefined,
  sender: OtlpSender,
  source: TelemetrySource,
  progress: ExportProgress,
  signal?: AbortSignal,
): Promise<TracesSummary> {
  let spans = 0;
  let logRecords = 0;
  const summary = await exportWindow(
    request,
    store,
    async (window, accepted) => {
      const atEnd: string[] = [];
      let executions = 0;
      for await (const batch of batchesInWindow(
        client,
        request.filter,
        window,
        BATCH,
        progress.start,
        signal,
      )) {
        const traced = await perExecution(batch.executions, (execution) =>
          detailsOf(client, execution, request.logs, signal),
        );
        const batchSpans = traced.flatMap((one) => spansOf(source, one));
        const batchLogs = traced.flatMap((one) => logRecordsOf(source, one));
        await sender.sendSpans(batchSpans, signal);
        await sender.sendLogRecords(batchLogs, signal);
        accepted(batch.executions);
        spans += batchSpans.length;
        logRecords += batchLogs.length;
        executions += batch.executions.length;
        atEnd.push(...batch.atEnd);
        progress.update(executions, spans + logRecords);
      }
      return { executions, rows: spans + logRecords, atEnd };
    },
    signal,
  );
  return { ...summary, spans, logRecords };
}

async function detailsOf(
  client: Client,
  execution: Execution,
  withLogs: boolean,
  signal: AbortSignal | undefined,
): Promise<TracedExecution> {
  const input = { workflowExecutionUUID: execution.uuid };
  const [events, logs] = await Promise.all([
    client.workflowExecutionEvents(input, { signal }),
    withLogs ? client.workflowExecutionLogs(input, { signal }) : { data: [] },
  ]);
  return { execution, events: events.data ?? [], logs: logs.data ?? [] };
}
