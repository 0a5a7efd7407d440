import { type Client, OBJECT_FIELDS, ValidationError } from '../../../client/index.js';
import { type ExportKind, fileStateStore, type WindowRequest } from './export-state.js';
import { type ExportFormat, encoderFor } from './formats.js';
import { type ExportSummary, exportWindow, type WindowResult } from './incremental.js';
import { batchesInWindow, type Execution, type ExportFilter, type ExportWindow } from './window.js';

type Row = Readonly<Record<string, unknown>>;

/** Where records go; resolves once the text may be followed by more (backpressure). */
export interface ExportSink {
  write(text: string): Promise<void>;
}

export interface ExportProgress {
  /** The number of executions in the window, once known. */
  start(total: number): void;
  update(executions: number, rows: number): void;
}

export interface ExportRequest extends WindowRequest {
  readonly kind: ExportKind;
  readonly format: ExportFormat;
  /** Incremental: the state file to resume from and to advance. */
  readonly statePath: string | undefined;
}

export type { ExportSummary };

/** Columns of each kind; log and event lines lead with their execution's uuid. */
export const EXPORT_COLUMNS: Readonly<Record<ExportKind, readonly string[]>> = {
  executions: OBJECT_FIELDS.WorkflowExecution,
  logs: ['workflowExecutionUUID', ...OBJECT_FIELDS.WorkflowExecutionLog],
  events: ['workflowExecutionUUID', ...OBJECT_FIELDS.WorkflowExecutionEvent],
};

/** Executions handled per write; their lines are fetched this many at a time. */
const BATCH = 100;
const CONCURRENCY = 4;

/** One export of records to the sink (see exportWindow: the state advances only after a complete run). */
export function exportRecords(
  client: Client,
  request: ExportRequest,
  sink: ExportSink,
  progress: ExportProgress,
  signal?: AbortSignal,
): Promise<ExportSummary> {
  const store = request.statePath === undefined ? undefined : fileStateStore(request.statePath);
  return exportWindow(request, store, (window) =>
    streamWindow(client, request, window, sink, progress, signal),
  );
}

/**
 * Streams every record of the window to the sink, oldest execution first: the executions
 * themselves, or their log lines or capability events (each execution's in their own order).
 * Resolves only after the last byte was handed to the sink.
 */
async function streamWindow(
  client: Client,
  run: { readonly kind: ExportKind; readonly filter: ExportFilter; readonly format: ExportFormat },
  window: ExportWindow,
  sink: ExportSink,
  progress: ExportProgress,
  signal: AbortSignal | undefined,
): Promise<WindowResult> {
  const encoder = encoderFor(run.format, EXPORT_COLUMNS[run.kind]);
  const atEnd: string[] = [];
  let executions = 0;
  let rows = 0;
  await sink.write(encoder.begin());
  const batches = batchesInWindow(client, run.filter, window, BATCH, progress.start, signal);
  for await (const batch of batches) {
    const records = await recordsOf(client, run.kind, batch.executions, signal);
    await sink.write(records.map((record) => encoder.record(record)).join(''));
    executions += batch.executions.length;
    rows += records.length;
    atEnd.push(...batch.atEnd);
    progress.update(executions, rows);
  }
  await sink.write(encoder.end());
  return { executions, rows, atEnd };
}

/** The records of a batch in execution order. */
async function recordsOf(
  client: Client,
  kind: ExportKind,
  executions: readonly Execution[],
  signal: AbortSignal | undefined,
): Promise<Row[]> {
  if (kind === 'executions') return executions.map((execution) => ({ ...execution }));
  const lines = await perExecution(executions, (execution) => linesOf(client, kind, execution.uuid, signal));
  return lines.flat();
}

/** `fetch` of each execution, in their order, for up to CONCURRENCY executions at once. */
export async function perExecution<T>(
  executions: readonly Execution[],
  fetch: (execution: Execution) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(executions.length);
  let next = 0;
  const worker = async () => {
    while (next < executions.length) {
      const index = next++;
      results[index] = await fetch(executions[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, executions.length) }, worker));
  return results;
}

async function linesOf(
  client: Client,
  kind: 'logs' | 'events',
  workflowExecutionUUID: string,
  signal: AbortSignal | undefined,
): Promise<Row[]> {
  const { data } =
    kind === 'logs'
      ? await logsOf(client, workflowExecutionUUID, signal)
      : await client.workflowExecutionEvents({ workflowExecutionUUID }, { signal });
  return (data ?? []).map((line) => ({ workflowExecutionUUID, ...line }));
}

type Logs = Awaited<ReturnType<Client['workflowExecutionLogs']>>;

/**
 * An execution's log lines: whole in one request, or, when the server refuses them as past its
 * answer's byte budget (BAD_USER_INPUT), page by page through workflowExecutionLogPage, which
 * every execution's lines pass. Asked whole first so that an export also runs against a server
 * without the extended API (the hosted platform).
 */
async function logsOf(
  client: Client,
  workflowExecutionUUID: string,
  signal: AbortSignal | undefined,
): Promise<Logs> {
  try {
    return await client.workflowExecutionLogs({ workflowExecutionUUID }, { signal });
  } catch (error) {
    if (!(error instanceof ValidationError && error.code === 'BAD_USER_INPUT')) throw error;
  }
  const lines: NonNullable<Logs['data']> = [];
  let after: string | null = null;
  do {
    const page: Awaited<ReturnType<Client['workflowExecutionLogPage']>> =
      await client.workflowExecutionLogPage({ workflowExecutionUUID, after }, { signal });
    if (page.data === null || page.data === undefined) return { data: null };
    lines.push(...page.data);
    after = page.next ?? null;
  } while (after !== null);
  return { data: lines };
}
