import type { Command } from 'commander';
import { WorkflowExecutionStatusValues } from '../../../client/index.js';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import { scopeLine, withScopeOptions } from '../../insight-scope.js';
import type { CliIo } from '../../io.js';
import { enumListOption } from '../../option-parsers.js';
import { type Palette, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { renderTable } from '../../render/table.js';
import { outputWidth } from '../../render/width.js';
import { formatDuration } from '../../time-input.js';
import { renderHistogram } from './histogram.js';
import { type Durations, type DurationsQuery, loadDurations } from './main.js';

type DurationsOptions = ConnectionOptions & DurationsQuery;

/** Columns of the longest histogram bar on a wide enough terminal (or without one). */
const BAR_WIDTH = 40;
/** Columns a histogram row takes besides its bar: range, count and share. */
const ROW_TEXT = 19 + 2 + 2 + 7 + 7;

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    withScopeOptions(
      program
        .command('durations')
        .description(
          "How long executions (or one capability's calls) took: p50, p90, p95, p99, min, max, mean and a histogram",
        ),
      'started',
    )
      .option('--capability <id>', "the durations of this capability's calls instead of whole executions")
      .option(
        '--status <statuses>',
        `execution status, comma-separated or repeated (${WorkflowExecutionStatusValues.join(', ')}); ` +
          'with --capability, SUCCESS or FAILURE of the call',
        enumListOption(WorkflowExecutionStatusValues),
      ),
  ).action(
    withClient(
      async (client, options: DurationsOptions) => {
        const durations = await loadDurations(client, options);
        if (options.json) writeJson(io, durations);
        else writeText(io, render(durations, stdoutPalette(io), outputWidth(io.stdout, io.env)));
      },
      (options) => options,
    ),
  );
}

const ms = (value: number | null | undefined) =>
  value === null || value === undefined ? '-' : formatDuration(value);

function render(result: Durations, p: Palette, width: number | undefined): string {
  const what = result.capabilityID ? `calls of ${result.capabilityID}` : 'executions';
  const status = result.status ? ` ${p.dim('status')} ${result.status.join(',')}` : '';
  const title = scopeLine(result, p, `  ${p.dim('durations of')} ${what}${status}`);
  const { stats } = result;
  if (stats.count === 0) return `${title}\n${p.dim(`no finished ${what} started in this window`)}`;
  const figures = renderTable(
    [stats],
    [
      { header: 'FINISHED', value: (s) => String(s.count), align: 'right' },
      { header: 'MIN', value: (s) => ms(s.minMs), align: 'right' },
      { header: 'P50', value: (s) => ms(s.p50Ms), align: 'right' },
      { header: 'P90', value: (s) => ms(s.p90Ms), align: 'right' },
      { header: 'P95', value: (s) => ms(s.p95Ms), align: 'right' },
      { header: 'P99', value: (s) => ms(s.p99Ms), align: 'right' },
      { header: 'MAX', value: (s) => ms(s.maxMs), align: 'right' },
      { header: 'MEAN', value: (s) => ms(s.meanMs), align: 'right' },
    ],
    p,
  );
  // On a narrow terminal the bars give way first, down to 10 columns.
  const barWidth = width === undefined ? BAR_WIDTH : Math.max(10, Math.min(BAR_WIDTH, width - ROW_TEXT));
  const note =
    'min, max and mean exact; percentiles nearest-rank within 2%; ' +
    'buckets from inclusive, to exclusive, ⋮ for empty ones';
  return `${title}\n${figures}\n\n${renderHistogram(stats.histogram, p, barWidth)}\n${p.dim(note)}`;
}
