import type { Command } from 'commander';
import { type ItemOf, WorkflowDeploymentStatusValues } from '../../../client/index.js';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import type { Collected } from '../../collect-pages.js';
import { enumListOption, integerOption } from '../../option-parsers.js';
import { type Palette, statusStyle, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { countLine, renderTable } from '../../render/table.js';
import { formatInstant } from '../../time-input.js';
import { listWorkflows } from './main.js';

interface WorkflowsOptions extends ConnectionOptions {
  search?: string;
  status?: (typeof WorkflowDeploymentStatusValues)[number][];
  owner?: string[];
  limit?: number;
}

export function register(program: Command): void {
  withConnectionOptions(
    program
      .command('workflows')
      .description('List the workflows of the organization with their all-time execution counts')
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
      .option('--limit <n>', 'show at most n workflows (default: all)', integerOption(1)),
  ).action(
    withClient(
      async (client, options: WorkflowsOptions) => {
        const result = await listWorkflows(
          client,
          { search: options.search, status: options.status, workflowOwnerAddress: options.owner },
          options.limit,
        );
        if (options.json) writeJson(result.items);
        else writeText(render(result, stdoutPalette(process.env)));
      },
      (options) => options,
    ),
  );
}

function render({ count, items }: Collected<ItemOf<'workflows'>>, p: Palette): string {
  if (count === 0) return p.dim('no workflows match');
  const table = renderTable(
    items,
    [
      { header: 'NAME', value: (w) => w.name, style: (text) => p.bold(text), max: 40 },
      { header: 'UUID', value: (w) => w.uuid },
      { header: 'STATUS', value: (w) => w.status, style: (text, w) => p[statusStyle(w.status)](text) },
      { header: 'EXECUTIONS', value: (w) => String(w.executionCount), align: 'right' },
      { header: 'OK', value: (w) => String(w.executionCountByStatus.success), align: 'right' },
      {
        header: 'FAILED',
        value: (w) => String(w.executionCountByStatus.failure),
        align: 'right',
        style: (text, w) => (w.executionCountByStatus.failure ? p.red(text) : text),
      },
      { header: 'CREDIT', value: (w) => w.creditUsed ?? '0', align: 'right' },
      { header: 'LAST EXECUTION', value: (w) => (w.executedAt ? formatInstant(w.executedAt) : '-') },
    ],
    p,
  );
  return `${table}\n${p.dim(countLine(items.length, count, 'workflow'))}`;
}
