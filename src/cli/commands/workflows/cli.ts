import { type Command, InvalidArgumentError, Option } from 'commander';
import { WorkflowDeploymentStatusValues } from '../../../client/index.js';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import type { Collected } from '../../collect-pages.js';
import type { CliIo } from '../../io.js';
import { enumListOption, integerOption } from '../../option-parsers.js';
import { type Palette, statusStyle, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { countLine, formatPercent, renderTable } from '../../render/table.js';
import { formatInstant, parseDuration } from '../../time-input.js';
import { listWorkflows, SORTS, type Sort, type WorkflowRow } from './main.js';

/** A window as typed (`24h`, shown in the headers) and in milliseconds. */
interface Window {
  readonly text: string;
  readonly ms: number;
}

interface WorkflowsOptions extends ConnectionOptions {
  search?: string;
  status?: (typeof WorkflowDeploymentStatusValues)[number][];
  owner?: string[];
  limit?: number;
  window: Window;
  sort?: Sort;
}

function windowOption(text: string): Window {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0)
    throw new InvalidArgumentError('Expected a duration such as 1h, 24h, 7d or 30d.');
  return { text: text.trim().toLowerCase(), ms };
}

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    program
      .command('workflows')
      .description(
        'List the workflows of the organization: status, runs and failure rate over a window, all-time executions',
      )
      .option('--search <text>', 'case-insensitive part of the name')
      .option(
        '--status <statuses>',
        `deployment status, comma-separated or repeated (${WorkflowDeploymentStatusValues.join(', ')})`,
        enumListOption(WorkflowDeploymentStatusValues),
      )
      .option('--owner <address>', 'owner address (repeatable)', (value: string, previous: string[] = []) => [
        ...previous,
        value,
      ])
      .addOption(
        new Option('--window <duration>', 'the recent past RUNS and FAILURE RATE cover, back from now')
          .argParser(windowOption)
          .default(windowOption('24h'), '24h'),
      )
      .addOption(
        new Option(
          '--sort <order>',
          'name (A-Z), status, last-run (latest first), failure-rate or runs (highest over the window first); ' +
            'default: most recently registered first',
        ).choices(SORTS),
      )
      .option('--limit <n>', 'show at most n workflows (default: all)', integerOption(1)),
  ).action(
    withClient(
      async (client, options: WorkflowsOptions) => {
        const result = await listWorkflows(
          client,
          { search: options.search, status: options.status, workflowOwnerAddress: options.owner },
          { limit: options.limit, sort: options.sort, from: new Date(Date.now() - options.window.ms) },
        );
        if (options.json) writeJson(io, result.items);
        else writeText(io, render(result, options.window, stdoutPalette(io)));
      },
      (options) => options,
    ),
  );
}

function render({ count, items }: Collected<WorkflowRow>, window: Window, p: Palette): string {
  if (count === 0) return p.dim('no workflows match');
  const span = window.text.toUpperCase();
  const table = renderTable(
    items,
    [
      { header: 'NAME', value: (w) => w.name, style: (text) => p.bold(text), max: 40 },
      { header: 'UUID', value: (w) => w.uuid },
      { header: 'STATUS', value: (w) => w.status, style: (text, w) => p[statusStyle(w.status)](text) },
      { header: `RUNS ${span}`, value: (w) => String(w.window.executionCount), align: 'right' },
      {
        header: `FAILURE RATE ${span}`,
        value: (w) =>
          w.window.failureRate === null
            ? '-'
            : `${formatPercent(w.window.failureRate)} (${w.window.failure})`,
        align: 'right',
        style: (text, w) => (w.window.failure ? p.red(text) : text),
      },
      { header: 'EXECUTIONS', value: (w) => String(w.executionCount), align: 'right' },
      { header: 'CREDIT', value: (w) => w.creditUsed ?? '0', align: 'right' },
      { header: 'LAST EXECUTION', value: (w) => (w.executedAt ? formatInstant(w.executedAt) : '-') },
    ],
    p,
  );
  const note = `RUNS and FAILURE RATE: executions started in the last ${window.text} (failed of finished); EXECUTIONS: all time`;
  return `${table}\n${p.dim(countLine(items.length, count, 'workflow'))}\n${p.dim(note)}`;
}
