import { type Command, Option } from 'commander';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../../client-options.js';
import { CliError, EXIT, QuietExit } from '../../../exit-codes.js';
import { type CliIo, onSignal } from '../../../io.js';
import { packageVersion } from '../../../package-version.js';
import { plural } from '../../../render/plural.js';
import { progressBar } from '../../../render/progress-bar.js';
import { durationOption, formatInstant } from '../../../time-input.js';
import { resolveWorkflow } from '../../../workflow-ref.js';
import { fileStateStore, memoryStateStore } from '../export-state.js';
import { follow } from '../incremental.js';
import { withWindowOptions } from '../window.js';
import type { TracesRequest, TracesSummary } from './export-traces.js';
import type { TelemetrySource } from './otlp-records.js';

interface TracesOptions extends ConnectionOptions {
  endpoint: string;
  header: Record<string, string>;
  since?: Date;
  until?: Date;
  workflow?: string;
  state?: string;
  follow: boolean;
  logs: boolean;
  interval: number;
  lag: number;
  retries: number;
  progress: boolean;
}

function headerOption(text: string, previous: Record<string, string>): Record<string, string> {
  const at = text.indexOf('=');
  if (at <= 0) throw new CliError(`--header: expected name=value, got "${text}"`, EXIT.USAGE);
  return { ...previous, [text.slice(0, at).trim().toLowerCase()]: text.slice(at + 1).trim() };
}

function countOption(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0)
    throw new CliError(`expected a whole number, got "${text}"`, EXIT.USAGE);
  return value;
}

/** `wfapi export traces`: executions as OpenTelemetry traces and logs over OTLP/HTTP (docs/opentelemetry.md). */
export function registerTraces(exportCommand: Command, io: CliIo): void {
  withConnectionOptions(
    withWindowOptions(
      exportCommand
        .command('traces')
        .description(
          'Send executions as OpenTelemetry traces (CI/CD conventions) and log records to an OTLP/HTTP endpoint',
        )
        .requiredOption(
          '--endpoint <url>',
          'the OTLP/HTTP base URL, e.g. http://127.0.0.1:4318 (posts to /v1/traces and /v1/logs)',
        )
        .option(
          '--header <name=value>',
          'a header for the OTLP endpoint, repeatable (e.g. authorization=Bearer ...)',
          headerOption,
          {},
        ),
    )
      .option(
        '--state <file>',
        'incremental: read where the last export ended, and record where this one ends',
      )
      .option('--no-logs', 'spans only: send no log records (for a receiver of traces only)')
      .option('--follow', 'keep running: export what settled since the last run every --interval')
      .addOption(
        new Option('--interval <duration>', 'with --follow: the wait between runs')
          .argParser(durationOption)
          .default(30_000, '30s'),
      )
      .addOption(
        new Option('--lag <duration>', 'incremental: leave out executions that started this recently')
          .argParser(durationOption)
          .default(5 * 60_000, '5m'),
      )
      .addOption(
        new Option('--retries <count>', 'retries of one OTLP request after a 429, a 5xx or a network failure')
          .argParser(countOption)
          .default(5),
      )
      .option('--no-progress', 'no progress bar on standard error'),
    { json: false },
  ).action(
    withClient(
      async (client, options: TracesOptions) => {
        // OpenTelemetry's modules weigh about 9 MB of heap: only this command loads them, so that
        // every other wfapi process (serve among them) does not carry them.
        const [
          { resourceFromAttributes },
          { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION },
          { exportTraces },
          { OtlpSender },
        ] = await Promise.all([
          import('@opentelemetry/resources'),
          import('@opentelemetry/semantic-conventions'),
          import('./export-traces.js'),
          import('./otlp-sender.js'),
        ]);
        const sender = new OtlpSender({
          endpoint: options.endpoint,
          headers: options.header,
          timeoutMs: options.timeout,
          retries: options.retries,
          onRetry: (what, { attempt, delayMs, error }) =>
            io.stderr.write(
              `wfapi: sending ${what} failed (${error.message}); retry ${attempt} in ${delayMs} ms\n`,
            ),
        });
        const workflowUuid = options.workflow && (await resolveWorkflow(client, options.workflow)).uuid;
        const source: TelemetrySource = {
          resource: resourceFromAttributes({
            [ATTR_SERVICE_NAME]: 'wfapi',
            [ATTR_SERVICE_VERSION]: packageVersion(),
          }),
          scope: { name: 'wfapi', version: packageVersion() },
        };
        const store =
          options.state !== undefined
            ? fileStateStore(options.state)
            : options.follow
              ? memoryStateStore()
              : undefined;
        const abort = new AbortController();
        const runOnce = async (now: number) => {
          const request: TracesRequest = {
            kind: 'traces',
            logs: options.logs,
            filter: { workflowUuid: workflowUuid || undefined },
            since: options.since,
            until: options.until,
            lagMs: options.lag,
            now,
          };
          const bar = progressBar<{ rows: number }>(
            'traces {bar} {percentage}% | {value}/{total} executions | {rows} spans and log records | ETA {eta_formatted}',
            {
              stream: io.stderr,
              enabled: options.progress && !options.follow,
              clearOnComplete: true,
              etaBuffer: 50,
            },
          );
          try {
            const summary = await exportTraces(
              client,
              request,
              store,
              sender,
              source,
              {
                start: (total) => bar.start(total, 0, { rows: 0 }),
                update: (executions, rows) => bar.update(executions, { rows }),
              },
              abort.signal,
            );
            bar.stop();
            io.stderr.write(`wfapi: ${describe(sender.base, options.state, summary)}\n`);
            // Stopped before the window was done: a one-off export is incomplete.
            if (summary.interrupted && !options.follow) throw new QuietExit(EXIT.FAILURE);
          } finally {
            bar.stop();
          }
        };
        // Ctrl-C or SIGTERM stops the run where it is; what was accepted is saved (exportWindow).
        const stop = () => abort.abort(new Error('stopped'));
        const release = onSignal(io, stop);
        try {
          if (options.follow) await follow(runOnce, options.interval, abort.signal);
          else await runOnce(Date.now());
        } finally {
          release();
        }
      },
      (options) => options,
    ),
  );
}

/** The closing line of a run on standard error. */
function describe(endpoint: string, statePath: string | undefined, summary: TracesSummary): string {
  const { window } = summary;
  if (summary.interrupted) {
    const kept =
      statePath === undefined
        ? ''
        : window.to
          ? `; state saved to ${statePath}: the next run starts after ${formatInstant(window.to)}`
          : `; nothing was accepted, so ${statePath} is as it was`;
    return `interrupted: ${plural(summary.executions, 'execution')} sent to ${endpoint} before the stop${kept}`;
  }
  if (summary.empty) {
    return `nothing new to export: executions from ${formatInstant(window.from!)} on have not settled yet`;
  }
  const range = window.to ? ` started up to ${formatInstant(window.to)}` : '';
  const saved = statePath === undefined ? '' : `; state saved to ${statePath}`;
  return `exported ${plural(summary.executions, 'execution')} as ${plural(summary.spans, 'span')} and ${plural(summary.logRecords, 'log record')} to ${endpoint}${range}${saved}`;
}
