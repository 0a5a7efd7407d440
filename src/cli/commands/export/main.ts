import { type Client, OBJECT_FIELDS } from '../../../client/index.js';
import type { ExportKind } from './export-state.js';
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

export interface ExportRun {
  readonly kind: ExportKind;
  readonly filter: ExportFilter;
  readonly window: ExportWindow;
  readonly format: ExportFormat;
}

export interface ExportResult {
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
 * Streams every record of the window to the sink, oldest execution first: the executions
 * themselves, or their log lines or capability events (each execution's in their own order).
 * Resolves only after the last byte was handed to the sink.
 */
export async function runExport(
  client: Client,
  run: ExportRun,
  sink: ExportSink,
  progress: ExportProgress,
  signal?: AbortSignal,
): Promise<ExportResult> {
  const encoder = encoderFor(run.format, EXPORT_COLUMNS[run.kind]);
  const endMs = run.window.to?.getTime();
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
  for await (const execution of executionsInWindow(client, run.filter, run.window, progress.start, signal)) {
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
