import type { Command } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import { scopeLine, withScopeOptions } from '../../insight-scope.js';
import type { CliIo } from '../../io.js';
import { integerOption } from '../../option-parsers.js';
import { type Palette, stdoutPalette } from '../../render/colors.js';
import { shortNodeNames } from '../../render/node-names.js';
import { writeJson, writeText } from '../../render/output.js';
import { renderTable } from '../../render/table.js';
import { outputWidth } from '../../render/width.js';
import { formatInstant } from '../../time-input.js';
import { type LogSearch, type LogSearchQuery, SEARCH_CAP, searchLogs } from './main.js';

type SearchOptions = ConnectionOptions & LogSearchQuery;

export function register(program: Command, io: CliIo): void {
  const logs = program.command('logs').description('Search the log lines of every execution');
  withConnectionOptions(
    withScopeOptions(
      logs
        .command('search')
        .description(
          'Log lines of a window whose message contains the text (case-insensitive, at least 3 characters), newest first',
        )
        .argument('<text>', 'the text to find, e.g. "insufficient funds"'),
      'logged',
    )
      .option('--node <id>', 'only lines of this node')
      .option('--limit <n>', 'show at most n lines', integerOption(1), 50),
  ).action(
    withClient(
      async (client, text: string, options: SearchOptions) => {
        const found = await searchLogs(client, text, options);
        if (options.json) writeJson(io, found);
        else writeText(io, render(found, stdoutPalette(io), outputWidth(io.stdout, io.env)));
      },
      (_text, options) => options,
    ),
  );
}

/** `text` with every case-insensitive occurrence of `query` styled. */
function highlight(text: string, query: string, style: (text: string) => string): string {
  const lower = text.toLowerCase();
  const wanted = query.toLowerCase();
  let out = '';
  let at = 0;
  for (let hit = lower.indexOf(wanted); wanted && hit >= 0; hit = lower.indexOf(wanted, at)) {
    out += text.slice(at, hit) + style(text.slice(hit, hit + wanted.length));
    at = hit + wanted.length;
  }
  return out + text.slice(at);
}

/** What the footer says about how many lines matched and how many are shown. */
function countNote({ count, countIsExact, lines }: LogSearch): string {
  const noun = count === 1 ? 'matching line' : 'matching lines';
  if (!countIsExact)
    return (
      `showing ${lines.length} of more than ${SEARCH_CAP} ${noun}, newest first: ` +
      `the search counts and pages through the first ${SEARCH_CAP} only; narrow the window, the workflow or the text`
    );
  if (lines.length < count)
    return `showing ${lines.length} of ${count} ${noun}, newest first (raise --limit to see more)`;
  return `${count} ${noun}, newest first`;
}

function render(result: LogSearch, p: Palette, width: number | undefined): string {
  const node = result.nodeID ? `  ${p.dim('node')} ${result.nodeID}` : '';
  const title = scopeLine(result, p, `  ${p.dim('lines containing')} ${JSON.stringify(result.query)}${node}`);
  if (result.count === 0) return `${title}\n${p.dim('no matching lines in this window')}`;
  const names = shortNodeNames([...new Set(result.lines.map((line) => line.nodeID))]);
  const table = renderTable(
    result.lines,
    [
      { header: 'TIME', value: (l) => formatInstant(l.timestamp) },
      { header: 'WORKFLOW', value: (l) => l.workflowName, max: 24 },
      { header: 'EXECUTION', value: (l) => l.workflowExecutionUUID, style: (text) => p.dim(text) },
      { header: 'NODE', value: (l) => names.get(l.nodeID)! },
      {
        header: 'MESSAGE',
        value: (l) => l.message,
        style: (text) => highlight(text, result.query, p.yellow),
      },
    ],
    p,
    width,
  );
  return `${title}\n${table}\n${p.dim(countNote(result))}`;
}
