import { type Command, Option } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import type { CliIo } from '../../io.js';
import { type Palette, statusStyle, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { renderFields } from '../../render/table.js';
import { formatInstant, instantOption } from '../../time-input.js';
import { showWorkflow, type WorkflowDetails } from './main.js';

interface WorkflowOptions extends ConnectionOptions {
  since: Date;
}

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    program
      .command('workflow')
      .description('Show one workflow with its execution counts and credit since a point in time')
      .argument('<workflow>', 'workflow uuid or exact name')
      .addOption(
        new Option('--since <when>', 'start of the counting window: 30d, 24h, a date or a date-time')
          .argParser(instantOption)
          .default(undefined, '30d'),
      ),
  ).action(
    withClient(
      async (client, ref: string, options: WorkflowOptions) => {
        const details = await showWorkflow(client, ref, options.since ?? instantOption('30d'));
        if (options.json) writeJson(io, details);
        else writeText(io, render(details, stdoutPalette(io)));
      },
      (_ref, options) => options,
    ),
  );
}

function teeText(hasTee: boolean, hasNonTee: boolean): string {
  if (hasTee && hasNonTee) return 'TEE and non-TEE';
  if (hasTee) return 'TEE only';
  return hasNonTee ? 'non-TEE only' : '';
}

function render({ workflow: w, since, latestDeployment: d }: WorkflowDetails, p: Palette): string {
  const counts = w.executionCountByStatus;
  const other = w.executionCount - counts.success - counts.failure;
  const title = `${p.bold(w.name)}  ${p[statusStyle(w.status)](w.status)}`;
  const about = renderFields(
    [
      ['uuid', w.uuid],
      ['workflow id', w.workflowId],
      ['owner', w.ownerAddress],
      ['source', w.workflowSource],
      ['registered', formatInstant(w.registeredAt)],
      ['last execution', w.executedAt ? formatInstant(w.executedAt) : ''],
      ['runs in', teeText(w.hasTeeExecutions, w.hasNonTeeExecutions)],
      [
        'latest deploy',
        d
          ? `${p[statusStyle(d.status)](d.status)} ${formatInstant(d.deployedAt)}${d.txHash ? `  tx ${d.txHash}` : ''}`
          : '',
      ],
    ],
    p,
  );
  const window = renderFields(
    [
      ['since', formatInstant(since)],
      [
        'executions',
        `${w.executionCount}: ${p.green(`${counts.success} ok`)}, ${counts.failure ? p.red(`${counts.failure} failed`) : '0 failed'}${other ? `, ${other} other` : ''}`,
      ],
      ['credit used', w.creditUsed ?? '0'],
    ],
    p,
  );
  return `${title}\n${about}\n\n${window}`;
}
