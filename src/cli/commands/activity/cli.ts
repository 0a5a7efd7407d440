import type { Command } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import type { CliIo } from '../../io.js';
import { renderActivityChart } from '../../render/chart.js';
import { type Palette, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { outputWidth } from '../../render/width.js';
import { formatDuration, formatInstant, instantOption } from '../../time-input.js';
import { type Activity, loadActivity } from './main.js';

interface ActivityOptions extends ConnectionOptions {
  workflow?: string;
  since?: Date;
  until?: Date;
}

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    program
      .command('activity')
      .description('Chart successful and failed executions over time')
      .option(
        '--workflow <workflow>',
        'only this workflow (uuid or exact name); default: the whole organization',
      )
      .option('--since <when>', 'start: 24h, 7d, 30d, a date or a date-time (default: 7d)', instantOption)
      .option(
        '--until <when>',
        'end: a duration back from now, a date or a date-time (default: now)',
        instantOption,
      ),
  ).action(
    withClient(
      async (client, options: ActivityOptions) => {
        const until = options.until ?? instantOption('now');
        const since = options.since ?? instantOption('7d');
        const activity = await loadActivity(client, options.workflow, since, until);
        if (options.json) writeJson(io, activity);
        else writeText(io, render(activity, stdoutPalette(io), outputWidth(io.stdout, io.env)));
      },
      (options) => options,
    ),
  );
}

/** Columns a row takes besides its bars: date, counts, rate and an in-progress mark. */
const ROW_TEXT = 16 + 2 + 1 + 18 + 2 + 7 + 20;

function render(activity: Activity, p: Palette, width: number | undefined): string {
  const scope = activity.workflow
    ? `${p.bold(activity.workflow.name)} ${p.dim(activity.workflow.uuid)}`
    : p.bold('all workflows');
  const first = activity.buckets[0];
  const buckets = first ? `, ${formatDuration(Date.parse(first.to) - Date.parse(first.from))} buckets` : '';
  const range = p.dim(`${formatInstant(activity.from)} to ${formatInstant(activity.to)}${buckets}`);
  // A narrow terminal gets shorter bars (rows stay one line each) down to 10 columns.
  const barWidth = width === undefined ? 40 : Math.max(10, Math.min(40, width - ROW_TEXT - 10));
  const chart = renderActivityChart(activity.buckets, p, { barWidth, rateWidth: barWidth >= 30 ? 10 : 5 });
  return `${scope}  ${range}\n${chart}`;
}
