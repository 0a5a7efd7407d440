import { type Client, OBJECT_FIELDS } from '../../../client/index.js';
import {
  type ExportKind,
  isEmptyWindow,
  nextState,
  planWindow,
  readState,
  type WindowRequest,
  writeState,
} from './export-state.js';
import { type ExportFormat, encoderFor } from './formats.js';
import { type Execution, type ExportFilter, type ExportWindow, executionsInWindow } from './window.js';

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
  readonly format: ExportFormat;
  /** Incremental: the state file to resume from and to advance. */
  readonly statePath: string | undefined;
}

export interface ExportSummary {
  readonly window: ExportWindow;
  /** True when nothing has settled since the last run; nothing was written. */
  readonly empty: boolean;
  readonly executions: number;
  readonly rows: number;
}

interface StreamResult {
  readonly executions: number;
  readonly rows: number;
  /** Uuids of the executions that started exactly at the window's end (the next boundary). */
  readonly atEnd: readonly string[];
}

/** Columns of each kind; log and event lines lead with their execution's uuid. */
export const EXPORT_COLUMNS: Readonly<Record<ExportKind, readonly string[]>> = {
  executions: OBJECT_FIELDS.WorkflowExecution,
  logs: ['workflowExecutionUUID', ...OBJECT_FIELDS.WorkflowExecutionLog],
  events: ['workflowExecutionUUID', ...OBJECT_FIELDS.WorkflowExecutionEvent],
};

/** Executions handled per write; their lines are fetched this many at a time. */
const BATCH = 100;
const CONCURRENCY = 4;

/**
 * One export: plans its window (from the state file when incremental), streams the window to
 * the sink, and only then advances the state file. A run that fails or is interrupted leaves the
 * state as it was, so the next run repeats the whole window rather than skipping any of it.
 */
export async function exportRecords(
  client: Client,
  request: ExportRequest,
  sink: ExportSink,
  progress: ExportProgress,
  signal?: AbortSignal,
): Promise<ExportSummary> {
  const { statePath } = request;
  const state = statePath === undefined ? undefined : await readState(statePath);
  const window = planWindow(statePath, state, request);
  if (statePath !== undefined && isEmptyWindow(window))
    return { window, empty: true, executions: 0, rows: 0 };
  const result = await streamWindow(client, request, window, sink, progress, signal);
  if (statePath !== undefined) await writeState(statePath, nextState(request, window, result.atEnd));
  return { window, empty: false, executions: result.executions, rows: result.rows };
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
): Promise<StreamResult> {
  const encoder = encoderFor(run.format, EXPORT_COLUMNS[run.kind]);
  const endMs = window.to?.getTime();
  const atEnd: string[] = [];
  let executions = 0;
  let rows = 0;
  let batch: Execution[] = [];
  const flush = async () => {
    const records = await recordsOf(client, run.kind, batch, signal);
    await sink.write(records.map((record) => encoder.record(record)).join(''));
    executions += batch.length;
    rows += records.length;
    batch = [];
    progress.update(executions, rows);
  };
  await sink.write(encoder.begin());
  for await (const execution of executionsInWindow(client, run.filter, window, progress.start, signal)) {
    if (Date.parse(execution.startedAt) === endMs) atEnd.push(execution.uuid);
    batch.push(execution);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  await sink.write(encoder.end());
  return { executions, rows, atEnd };
}

/** The records of a batch in execution order, fetching lines for up to CONCURRENCY executions at once. */
async function recordsOf(
  client: Client,
  kind: ExportKind,
  executions: readonly Execution[],
  signal: AbortSignal | undefined,
): Promise<Row[]> {
  if (kind === 'executions') return executions.map((execution) => ({ ...execution }));
  const lines: Row[][] = new Array(executions.length);
  let next = 0;
  const worker = async () => {
    while (next < executions.length) {
      const index = next++;
      lines[index] = await linesOf(client, kind, executions[index]!.uuid, signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, executions.length) }, worker));
  return lines.flat();
}

async function linesOf(
  client: Client,
  kind: 'logs' | 'events',
  workflowExecutionUUID: string,
  signal: AbortSignal | undefined,
): Promise<Row[]> {
  const { data } =
    kind === 'logs'
      ? await client.workflowExecutionLogs({ workflowExecutionUUID }, { signal })
      : await client.workflowExecutionEvents({ workflowExecutionUUID }, { signal });
  return (data ?? []).map((line) => ({ workflowExecutionUUID, ...line }));
}
