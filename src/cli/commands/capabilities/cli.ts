import type { Command } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import { scopeLine, withScopeOptions } from '../../insight-scope.js';
import type { CliIo } from '../../io.js';
import { integerOption } from '../../option-parsers.js';
import { type Palette, stdoutPalette } from '../../render/colors.js';
import { writeJson, writeText } from '../../render/output.js';
import { countLine, formatPercent, renderTable } from '../../render/table.js';
import { formatDuration } from '../../time-input.js';
import { type CapabilitiesQuery, type CapabilityHealth, loadCapabilities } from './main.js';

type CapabilitiesOptions = ConnectionOptions & CapabilitiesQuery;

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    withScopeOptions(
      program
        .command('capabilities')
        .description(
          'Capability health over a window: calls, failures, failure rate, p50 and p95, most failures first',
        ),
      'calls started',
    ).option('--limit <n>', 'show at most n capabilities (default: all)', integerOption(1)),
  ).action(
    withClient(
      async (client, options: CapabilitiesOptions) => {
        const health = await loadCapabilities(client, options);
        if (options.json) writeJson(io, health);
        else writeText(io, render(health, stdoutPalette(io)));
      },
      (options) => options,
    ),
  );
}

const ms = (value: number | null) => (value === null ? '-' : formatDuration(value));

function render(result: CapabilityHealth, p: Palette): string {
  const title = scopeLine(result, p);
  if (result.count === 0) return `${title}\n${p.dim('no capability calls in this window')}`;
  const table = renderTable(
    result.capabilities,
    [
      { header: 'CAPABILITY', value: (c) => c.capabilityID, style: (text) => p.bold(text) },
      { header: 'CALLS', value: (c) => String(c.calls), align: 'right' },
      {
        header: 'FAILURES',
        value: (c) => String(c.failures),
        align: 'right',
        style: (text, c) => (c.failures ? p.red(text) : text),
      },
      {
        header: 'FAILURE RATE',
        value: (c) => formatPercent(c.failureRate),
        align: 'right',
        style: (text, c) => (c.failures ? p.red(text) : text),
      },
      { header: 'P50', value: (c) => ms(c.p50Ms), align: 'right' },
      { header: 'P95', value: (c) => ms(c.p95Ms), align: 'right' },
    ],
    p,
  );
  const note =
    'a call fails when it carries an error or its status is neither COMPLETED nor SUCCESS; ' +
    'P50 and P95 over the finished calls';
  return `${title}\n${table}\n${p.dim(countLine(result.capabilities.length, result.count, 'capability', 'capabilities'))}\n${p.dim(note)}`;
}
