import type { Command } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import type { CliIo } from '../../io.js';
import { type Palette, statusStyle, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { renderTable } from '../../render/table.js';
import {
  type Impact,
  milliseconds,
  percent,
  points,
  pValue,
  relative,
  verdictText,
} from '../../render/verdicts.js';
import { formatInstant } from '../../time-input.js';
import { type DeploymentImpactReport, loadImpact } from './main.js';

interface ImpactOptions extends ConnectionOptions {
  deployment?: string;
}

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    program
      .command('impact')
      .description(
        "Explain a deployment's verdict: executions before and after it, the tests' p-values, the error groups it brought and ended",
      )
      .argument('<workflow>', 'workflow uuid or exact name')
      .option('--deployment <uuid>', 'the deployment (default: the latest)'),
  ).action(
    withClient(
      async (client, ref: string, options: ImpactOptions) => {
        const report = await loadImpact(client, ref, options.deployment);
        if (options.json) writeJson(io, report.impact);
        else writeText(io, render(report, stdoutPalette(io)));
      },
      (_ref, options) => options,
    ),
  );
}

function sides(impact: Impact, p: Palette): string {
  const { before, after } = impact;
  const rows: Array<[string, string, string, string]> = [
    ['', 'BEFORE', 'AFTER', ''],
    ['from', formatInstant(before.from), formatInstant(after.from), ''],
    ['to', formatInstant(before.to), formatInstant(after.to), ''],
    ['finished', String(before.executions), String(after.executions), ''],
    [
      'failures',
      `${before.failures} (${percent(before.failureRate)})`,
      `${after.failures} (${percent(after.failureRate)})`,
      `${points(impact.failureRateChange)}  ${pValue(impact.failureRatePValue)} (Fisher exact)`,
    ],
    [
      'p50',
      milliseconds(before.p50Ms),
      milliseconds(after.p50Ms),
      `${relative(impact.durationChange)}  ${pValue(impact.durationPValue)} (Mann-Whitney U)`,
    ],
    ['p95', milliseconds(before.p95Ms), milliseconds(after.p95Ms), ''],
  ];
  return renderTable(
    rows.slice(1),
    [
      { header: '', value: (r) => r[0], style: (text) => p.dim(text) },
      { header: rows[0]![1], value: (r) => r[1] },
      { header: rows[0]![2], value: (r) => r[2] },
      { header: 'CHANGE', value: (r) => r[3] },
    ],
    p,
  );
}

function groups(title: string, list: Impact['newErrorGroups'], p: Palette): string {
  if (list.length === 0) return `${p.bold(title)} ${p.dim('none')}`;
  const table = renderTable(
    list,
    [
      { header: 'OCCURRENCES', value: (g) => String(g.occurrences), align: 'right' },
      { header: 'EXECUTIONS', value: (g) => String(g.executionCount), align: 'right' },
      { header: 'FINGERPRINT', value: (g) => g.fingerprint, style: (text) => p.dim(text) },
      { header: 'PATTERN', value: (g) => g.pattern },
    ],
    p,
  );
  return `${p.bold(title)} (${list.length})\n${table}`;
}

function render({ workflow, impact }: DeploymentImpactReport, p: Palette): string {
  const title = `${p.bold(workflow.name)} ${p.dim(workflow.uuid)}`;
  if (impact === null) return `${title}\n${p.dim('no deployments')}`;
  const d = impact.deployment;
  const lines = [
    title,
    `deployment ${d.uuid}  ${p[statusStyle(d.status)](d.status)}  deployed ${formatInstant(d.deployedAt)}`,
    `verdict ${verdictText(impact, p)}`,
    '',
    sides(impact, p),
    '',
    groups('new error groups', impact.newErrorGroups, p),
    groups('resolved error groups', impact.resolvedErrorGroups, p),
    p.dim(
      'REGRESSED: failure rate up (p < 0.01) or median duration up 20% or more (p < 0.01); IMPROVED: down by the same tests; under 50 finished on either side: INSUFFICIENT_DATA',
    ),
  ];
  return lines.join('\n');
}
