import type { Command } from 'commander';
import { WorkflowDeploymentStatusValues } from '../../../client/index.js';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import { enumListOption, integerOption } from '../../option-parsers.js';
import { type Palette, statusStyle, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { countLine, renderTable } from '../../render/table.js';
import { formatInstant } from '../../time-input.js';
import { listDeployments, type WorkflowDeployments } from './main.js';

interface DeploymentsOptions extends ConnectionOptions {
  status?: (typeof WorkflowDeploymentStatusValues)[number][];
  limit?: number;
}

export function register(program: Command): void {
  withConnectionOptions(
    program
      .command('deployments')
      .description('List the deployments of a workflow, newest first')
      .argument('<workflow>', 'workflow uuid or exact name')
      .option(
        '--status <statuses>',
        `deployment status, comma-separated or repeated (${WorkflowDeploymentStatusValues.join(', ')})`,
        enumListOption(WorkflowDeploymentStatusValues),
      )
      .option('--limit <n>', 'show at most n deployments (default: all)', integerOption(1)),
  ).action(
    withClient(
      async (client, ref: string, options: DeploymentsOptions) => {
        const result = await listDeployments(client, ref, { status: options.status }, options.limit);
        if (options.json) writeJson(result.items);
        else writeText(render(result, stdoutPalette(process.env)));
      },
      (_ref, options) => options,
    ),
  );
}

function render({ workflow, count, items }: WorkflowDeployments, p: Palette): string {
  const title = `${p.bold(workflow.name)} ${p.dim(workflow.uuid)}`;
  if (count === 0) return `${title}\n${p.dim('no deployments match')}`;
  const table = renderTable(
    items,
    [
      { header: 'DEPLOYED', value: (d) => formatInstant(d.deployedAt) },
      { header: 'STATUS', value: (d) => d.status, style: (text, d) => p[statusStyle(d.status)](text) },
      { header: 'UUID', value: (d) => d.uuid },
      { header: 'OK', value: (d) => String(d.executionCountByStatus?.success ?? 0), align: 'right' },
      {
        header: 'FAILED',
        value: (d) => String(d.executionCountByStatus?.failure ?? 0),
        align: 'right',
        style: (text, d) => (d.executionCountByStatus?.failure ? p.red(text) : text),
      },
      { header: 'TX HASH', value: (d) => d.txHash ?? '-', max: 24 },
      { header: 'ERROR', value: (d) => d.errorMessage ?? '', style: (text) => p.red(text), max: 60 },
    ],
    p,
  );
  return `${title}\n${table}\n${p.dim(countLine(items.length, count, 'deployment'))}`;
}
