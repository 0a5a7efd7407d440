import type { Command } from 'commander';
import { type ItemOf, WorkflowExecutionStatusValues } from '../../../client/index.js';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import type { Collected } from '../../collect-pages.js';
import type { CliIo } from '../../io.js';
import { enumListOption, integerOption } from '../../option-parsers.js';
import { type Palette, statusStyle, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { countLine, renderTable } from '../../render/table.js';
import { elapsed, formatInstant, instantOption } from '../../time-input.js';
import { listExecutions } from './main.js';

interface ExecutionsOptions extends ConnectionOptions {
  workflow?: string;
  status?: (typeof WorkflowExecutionStatusValues)[number][];
  since?: Date;
  until?: Date;
  search?: string;
  fingerprint?: string;
  limit: number;
}

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    program
      .command('executions')
      .description('List executions, newest first')
      .option('--workflow <workflow>', 'only this workflow (uuid or exact name)')
      .option(
        '--status <statuses>',
        `status, comma-separated or repeated (${WorkflowExecutionStatusValues.join(', ')})`,
        enumListOption(WorkflowExecutionStatusValues),
      )
      .option('--since <when>', 'started at or after: 24h, 7d, a date or a date-time', instantOption)
      .option('--until <when>', 'started at or before: 1h, a date or a date-time', instantOption)
      .option('--search <text>', "case-insensitive part of the execution's id or uuid or the workflow name")
      .option(
        '--fingerprint <fingerprint>',
        'only executions with an error of this group (at execution or capability level; `wfapi errors` shows them)',
      )
      .option('--limit <n>', 'show at most n executions', integerOption(1), 50),
  ).action(
    withClient(
      async (client, options: ExecutionsOptions) => {
        const result = await listExecutions(
          client,
          {
            workflow: options.workflow,
            status: options.status,
            from: options.since,
            to: options.until,
            search: options.search,
            errorFingerprint: options.fingerprint,
          },
          options.limit,
        );
        if (options.json) writeJson(io, result.items);
        else writeText(io, render(result, stdoutPalette(io)));
      },
      (options) => options,
    ),
  );
}

type Execution = ItemOf<'workflowExecutions'>;

function render({ count, items }: Collected<Execution>, p: Palette): string {
  if (count === 0) return p.dim('no executions match');
  const table = renderTable(
    items,
    [
      { header: 'STARTED', value: (e) => formatInstant(e.startedAt) },
      { header: 'UUID', value: (e) => e.uuid },
      { header: 'WORKFLOW', value: (e) => e.workflowName, max: 28 },
      { header: 'STATUS', value: (e) => e.status, style: (text, e) => p[statusStyle(e.status)](text) },
      { header: 'DURATION', value: (e) => elapsed(e.startedAt, e.finishedAt), align: 'right' },
      { header: 'CREDIT', value: (e) => e.creditUsed ?? '-', align: 'right' },
      {
        header: 'ERROR',
        value: (e) => e.errors?.find((x) => x)?.error ?? '',
        style: (text) => p.red(text),
        max: 50,
      },
    ],
    p,
  );
  return `${table}\n${p.dim(countLine(items.length, count, 'execution'))}`;
}
