import type { Command } from 'commander';
import { WorkflowDeploymentStatusValues } from '../../../client/index.js';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import type { CliIo } from '../../io.js';
import { enumListOption, integerOption } from '../../option-parsers.js';
import { type Palette, statusStyle, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { countLine, renderTable } from '../../render/table.js';
import { percent, relative, VERDICT_STYLE } from '../../render/verdicts.js';
import { formatInstant } from '../../time-input.js';
import { listDeployments, type WorkflowDeployments } from './main.js';

interface DeploymentsOptions extends ConnectionOptions {
  status?: (typeof WorkflowDeploymentStatusValues)[number][];
  limit?: number;
}

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    program
      .command('deployments')
      .description(
        'List the deployments of a workflow, newest first, with the verdict on each: regressed, improved, no change',
      )
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
        if (options.json)
          writeJson(
            io,
            result.items.map((d) => ({ ...d, impact: result.impacts.get(d.uuid) ?? null })),
          );
        else writeText(io, render(result, stdoutPalette(io)));
      },
      (_ref, options) => options,
    ),
  );
}

function render({ workflow, count, items, impacts }: WorkflowDeployments, p: Palette): string {
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
      {
        header: 'VERDICT',
        value: (d) => impacts.get(d.uuid)?.verdict ?? '-',
        style: (text, d) => {
          const impact = impacts.get(d.uuid);
          return impact ? p[VERDICT_STYLE[impact.verdict]](text) : text;
        },
      },
      {
        header: 'FAIL RATE',
        value: (d) => {
          const impact = impacts.get(d.uuid);
          return impact
            ? `${percent(impact.before.failureRate)} → ${percent(impact.after.failureRate)}`
            : '-';
        },
      },
      { header: 'MEDIAN', value: (d) => relative(impacts.get(d.uuid)?.durationChange), align: 'right' },
      {
        header: 'NEW ERRORS',
        value: (d) => String(impacts.get(d.uuid)?.newErrorGroups.length ?? '-'),
        align: 'right',
      },
      { header: 'TX HASH', value: (d) => d.txHash ?? '-', max: 24 },
      { header: 'ERROR', value: (d) => d.errorMessage ?? '', style: (text) => p.red(text), max: 60 },
    ],
    p,
  );
  const notes = [
    countLine(items.length, count, 'deployment'),
    'VERDICT: 7 days after against 7 days before (at most to the neighbouring deployments); `wfapi impact <workflow> --deployment <uuid>` explains one',
  ];
  return `${title}\n${table}\n${notes.map((note) => p.dim(note)).join('\n')}`;
}
