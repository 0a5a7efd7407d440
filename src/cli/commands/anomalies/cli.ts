import { type Command, InvalidArgumentError } from 'commander';
import { type AnomalyMetric, AnomalyMetricValues } from '../../../client/index.js';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import { scopeLine, withScopeOptions } from '../../insight-scope.js';
import type { CliIo } from '../../io.js';
import { enumListOption } from '../../option-parsers.js';
import { type Palette, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { sparkline } from '../../render/sparkline.js';
import { renderTable } from '../../render/table.js';
import { metricValue } from '../../render/verdicts.js';
import { formatDuration, formatInstant } from '../../time-input.js';
import { type AnomaliesReport, loadAnomalies } from './main.js';

type AnomaliesOptions = ConnectionOptions & {
  workflow?: string;
  since?: Date;
  until?: Date;
  metric?: AnomalyMetric[];
  sensitivity?: number;
};

function sensitivityOption(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 1 || value > 10)
    throw new InvalidArgumentError('Expected a number from 1 to 10.');
  return value;
}

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    withScopeOptions(
      program
        .command('anomalies')
        .description(
          'Buckets that stand out from the same time of the week in the four weeks before: executions, failure rate, p95 duration',
        ),
      'buckets starting',
    )
      .option(
        '--metric <metrics>',
        `metric, comma-separated or repeated (${AnomalyMetricValues.join(', ')}; default: all)`,
        enumListOption(AnomalyMetricValues),
      )
      .option('--sensitivity <k>', 'band width in spreads, 1 to 10 (default 3)', sensitivityOption),
  ).action(
    withClient(
      async (client, options: AnomaliesOptions) => {
        const report = await loadAnomalies(client, options);
        if (options.json) writeJson(io, report.answer);
        else writeText(io, render(report, stdoutPalette(io)));
      },
      (options) => options,
    ),
  );
}

type Series = AnomaliesReport['answer']['series'][number];

/**
 * Three lines per series: observed and expected as sparklines on one scale (the larger of the
 * observed values and the band's top), and a marker under each anomalous bucket (▲ above the
 * band, ▼ below).
 */
function seriesLines(series: Series, p: Palette): string[] {
  const observed = series.points.map((point) => point.observed ?? 0);
  const expected = series.points.map((point) => point.expected ?? 0);
  const max = Math.max(0, ...observed, ...series.points.map((point) => point.upper ?? 0));
  const marks = series.points
    .map((point) =>
      !point.anomalous ? ' ' : (point.observed ?? 0) > (point.upper ?? Number.POSITIVE_INFINITY) ? '▲' : '▼',
    )
    .join('');
  const label = series.metric.padEnd(13);
  return [
    `${p.bold(label)} ${p.dim('observed')} ${sparkline(observed, max)}`,
    `${' '.repeat(13)} ${p.dim('expected')} ${p.dim(sparkline(expected, max))}`,
    `${' '.repeat(13)}          ${p.red(marks.trimEnd())}`,
  ];
}

function render(report: AnomaliesReport, p: Palette): string {
  const { answer } = report;
  const title = scopeLine(
    report,
    p,
    report.sensitivity === null ? '' : `  ${p.dim('sensitivity')} ${report.sensitivity}`,
  );
  const first = answer.series[0]?.points[0];
  const width = first ? Date.parse(first.to) - Date.parse(first.from) : 0;
  const lines = [title, ...answer.series.flatMap((series) => seriesLines(series, p))];
  if (answer.data.length === 0) lines.push(p.dim('no anomalies in this window'));
  else
    lines.push(
      renderTable(
        answer.data,
        [
          { header: 'FROM', value: (a) => formatInstant(a.from) },
          { header: 'METRIC', value: (a) => a.metric },
          { header: 'OBSERVED', value: (a) => metricValue(a.metric, a.observed), align: 'right' },
          { header: 'EXPECTED', value: (a) => metricValue(a.metric, a.expected), align: 'right' },
          {
            header: 'BAND',
            value: (a) => `${metricValue(a.metric, a.lower)} to ${metricValue(a.metric, a.upper)}`,
          },
          { header: 'SCORE', value: (a) => a.score.toFixed(1), align: 'right' },
          {
            header: 'DIR',
            value: (a) => (a.direction === 'UP' ? '▲ up' : '▼ down'),
            style: (text) => p.red(text),
          },
          { header: 'WORKFLOW', value: (a) => a.workflowName ?? 'all workflows' },
        ],
        p,
      ),
    );
  lines.push(
    p.dim(
      `buckets of ${formatDuration(width)}; expected: the median of the same time in the four weeks before (else the 8 buckets before), band: ± sensitivity x 1.4826 MAD`,
    ),
  );
  return lines.join('\n');
}
