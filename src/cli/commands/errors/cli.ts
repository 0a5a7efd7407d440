import type { Command } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import { scopeLine, withScopeOptions } from '../../insight-scope.js';
import type { CliIo } from '../../io.js';
import { integerOption } from '../../option-parsers.js';
import { type Palette, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { foldCounts, sparkline } from '../../render/sparkline.js';
import { countLine, renderTable } from '../../render/table.js';
import { outputWidth } from '../../render/width.js';
import { formatDuration, formatInstant } from '../../time-input.js';
import { type ErrorGroups, type ErrorsQuery, loadErrorGroups } from './main.js';

type ErrorsOptions = ConnectionOptions & ErrorsQuery;

/** Columns of the widest trend; a longer window folds its buckets to fit. */
const TREND_WIDTH = 24;

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    withScopeOptions(
      program
        .command('errors')
        .description(
          'Error groups of a window (messages alike but for numbers, ids and quoted text), most frequent first, with their trend',
        ),
      'executions started',
    )
      .option('--capability <id>', "only errors of this capability's calls (e.g. http-fetch@2.1.0)")
      .option('--limit <n>', 'show at most n groups', integerOption(1), 20),
  ).action(
    withClient(
      async (client, options: ErrorsOptions) => {
        const groups = await loadErrorGroups(client, options);
        if (options.json) writeJson(io, groups);
        else writeText(io, render(groups, stdoutPalette(io), outputWidth(io.stdout, io.env)));
      },
      (options) => options,
    ),
  );
}

function render(result: ErrorGroups, p: Palette, width: number | undefined): string {
  const capability = result.capabilityID ? `  ${p.dim('capability')} ${result.capabilityID}` : '';
  const title = scopeLine(result, p, capability);
  if (result.count === 0) return `${title}\n${p.dim('no errors in this window')}`;
  const first = result.groups[0]!.activity;
  const { size } = foldCounts(
    first.map((bucket) => bucket.occurrences),
    TREND_WIDTH,
  );
  const trend = (group: ErrorGroups['groups'][number]) =>
    sparkline(
      foldCounts(
        group.activity.map((bucket) => bucket.occurrences),
        TREND_WIDTH,
      ).sums,
    );
  const table = renderTable(
    result.groups,
    [
      { header: 'TREND', value: trend, style: (text) => p.red(text) },
      { header: 'OCCURRENCES', value: (g) => String(g.occurrences), align: 'right' },
      { header: 'EXECUTIONS', value: (g) => String(g.executionCount), align: 'right' },
      { header: 'FIRST SEEN', value: (g) => formatInstant(g.firstSeenAt) },
      { header: 'LAST SEEN', value: (g) => formatInstant(g.lastSeenAt) },
      { header: 'FINGERPRINT', value: (g) => g.fingerprint, style: (text) => p.dim(text) },
      { header: 'PATTERN', value: (g) => g.pattern },
    ],
    p,
    width,
  );
  const bucket = first[0] ? Date.parse(first[0].to) - Date.parse(first[0].from) : 0;
  const notes = [
    countLine(result.groups.length, result.count, 'error group'),
    `TREND: occurrences per ${formatDuration(bucket * size)} over the window, each row scaled to its own peak (· none); ` +
      'FIRST and LAST SEEN: all time',
    '`wfapi executions --fingerprint <fingerprint>` lists the executions of a group',
  ];
  return `${title}\n${table}\n${notes.map((note) => p.dim(note)).join('\n')}`;
}
