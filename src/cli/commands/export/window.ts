import type { Command } from 'commander';
import type { Client, ItemOf, WorkflowExecutionStatus } from '../../../client/index.js';
import { instantOption } from '../../time-input.js';

export type Execution = ItemOf<'workflowExecutions'>;

export interface ExportFilter {
  readonly workflowUuid?: string | undefined;
  readonly status?: readonly WorkflowExecutionStatus[] | undefined;
}

/**
 * The executions an export covers: startedAt in [from, to], both inclusive (absent = unbounded),
 * minus `skip`, the uuids at exactly `from` that the previous run already exported.
 */
export interface ExportWindow {
  readonly from: Date | undefined;
  readonly to: Date | undefined;
  readonly skip: ReadonlySet<string>;
}

/**
 * Every execution of the window once, oldest first (startedAt, then uuid). Pages are offsets, so
 * an execution stored mid-export before the current position shifts the rest by one and the
 * next page repeats an execution already yielded: anything that starts earlier than the last
 * yielded one, or at the same instant with a uuid already yielded, is such a repeat and is
 * dropped. The comparison is by instant and uuid set, never by uuid order, so it holds whatever
 * sub-millisecond precision the server keeps.
 */
export async function* executionsInWindow(
  client: Client,
  filter: ExportFilter,
  window: ExportWindow,
  onTotal: (count: number) => void = () => {},
  signal?: AbortSignal,
): AsyncGenerator<Execution, void, undefined> {
  const pages = client.paginate
    .workflowExecutions(
      {
        workflowUuid: filter.workflowUuid,
        status: filter.status ? [...filter.status] : undefined,
        from: window.from,
        to: window.to,
        orderBy: { field: 'STARTED_AT', order: 'ASC' },
      },
      { signal },
    )
    .pages();
  const fromMs = window.from?.getTime();
  let lastMs = Number.NEGATIVE_INFINITY;
  let atLast = new Set<string>();
  let first = true;
  for await (const page of pages) {
    if (first) onTotal(page.count);
    first = false;
    for (const execution of page.data) {
      const ms = Date.parse(execution.startedAt);
      if (ms < lastMs || (ms === lastMs && atLast.has(execution.uuid))) continue;
      if (ms === fromMs && window.skip.has(execution.uuid)) continue;
      if (ms > lastMs) {
        lastMs = ms;
        atLast = new Set();
      }
      atLast.add(execution.uuid);
      yield execution;
    }
  }
}

/**
 * The executions of the window (executionsInWindow) in batches of up to `size`, oldest first,
 * each with the uuids of its executions that started exactly at the window's end.
 */
export async function* batchesInWindow(
  client: Client,
  filter: ExportFilter,
  window: ExportWindow,
  size: number,
  onTotal: (count: number) => void = () => {},
  signal?: AbortSignal,
): AsyncGenerator<{ executions: Execution[]; atEnd: string[] }, void, undefined> {
  const endMs = window.to?.getTime();
  let batch: { executions: Execution[]; atEnd: string[] } = { executions: [], atEnd: [] };
  for await (const execution of executionsInWindow(client, filter, window, onTotal, signal)) {
    if (Date.parse(execution.startedAt) === endMs) batch.atEnd.push(execution.uuid);
    batch.executions.push(execution);
    if (batch.executions.length >= size) {
      yield batch;
      batch = { executions: [], atEnd: [] };
    }
  }
  if (batch.executions.length > 0) yield batch;
}

/** The options that choose an export's executions, shared by `export <kind>` and `export traces`. */
export function withWindowOptions(command: Command): Command {
  return command
    .option(
      '--since <when>',
      'executions started at or after: 30d, a date or a date-time (with --state: the first run only)',
      instantOption,
    )
    .option('--until <when>', 'executions started at or before: 1h, a date or a date-time', instantOption)
    .option('--workflow <workflow>', 'only this workflow (uuid or exact name)');
}
