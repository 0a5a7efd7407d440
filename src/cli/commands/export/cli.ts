import { once } from 'node:events';
import { Argument, type Command, Option } from 'commander';
import { WorkflowExecutionStatusValues } from '../../../client/index.js';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import { CliError } from '../../exit-codes.js';
import type { CliIo } from '../../io.js';
import { enumListOption } from '../../option-parsers.js';
import { plural } from '../../render/plural.js';
import { progressBar } from '../../render/progress-bar.js';
import { durationOption, formatInstant } from '../../time-input.js';
import { resolveWorkflow } from '../../workflow-ref.js';
import { EXPORT_KINDS, type ExportKind } from './export-state.js';
import { EXPORT_FORMATS, type ExportFormat } from './formats.js';
import {
  type ExportProgress,
  type ExportRequest,
  type ExportSink,
  type ExportSummary,
  exportRecords,
} from './main.js';
import { registerTraces } from './traces/cli.js';
import { withWindowOptions } from './window.js';

const ROW_NOUNS: Readonly<Record<ExportKind, string>> = {
  executions: 'execution',
  logs: 'log line',
  events: 'capability event',
};

interface ExportOptions extends ConnectionOptions {
  since?: Date;
  until?: Date;
  workflow?: string;
  status?: (typeof WorkflowExecutionStatusValues)[number][];
  format: ExportFormat;
  state?: string;
  lag: number;
  progress: boolean;
}

export function register(program: Command, io: CliIo): void {
  const command = withConnectionOptions(
    withWindowOptions(
      program
        .command('export')
        // Its options before `traces` are its own; those after it are the subcommand's.
        .enablePositionalOptions()
        .description(
          'Stream executions, log lines or capability events; --state resumes where the last run ended',
        )
        .addArgument(new Argument('<kind>', 'what to export').choices(EXPORT_KINDS))
        .addOption(
          new Option('--format <format>', 'output format').choices(EXPORT_FORMATS).default('ndjson'),
        ),
    )
      .option(
        '--status <statuses>',
        `execution status, comma-separated or repeated (${WorkflowExecutionStatusValues.join(', ')})`,
        enumListOption(WorkflowExecutionStatusValues),
      )
      .option(
        '--state <file>',
        'incremental: read where the last export ended, and record where this one ends',
      )
      .addOption(
        new Option('--lag <duration>', 'incremental: leave out executions that started this recently')
          .argParser(durationOption)
          .default(5 * 60_000, '5m'),
      )
      .option('--no-progress', 'no progress bar on standard error'),
    { json: false },
  ).action(
    withClient(
      async (client, kind: ExportKind, options: ExportOptions) => {
        const workflowUuid = options.workflow && (await resolveWorkflow(client, options.workflow)).uuid;
        const request: ExportRequest = {
          kind,
          filter: { workflowUuid: workflowUuid || undefined, status: options.status },
          since: options.since,
          until: options.until,
          lagMs: options.lag,
          now: Date.now(),
          format: options.format,
          statePath: options.state,
        };
        const abort = new AbortController();
        const bar = progressBar<{ rows: number }>(
          `${kind} {bar} {percentage}% | {value}/{total} executions | {rows} rows | ETA {eta_formatted}`,
          { stream: io.stderr, enabled: options.progress, clearOnComplete: true, etaBuffer: 50 },
        );
        const progress: ExportProgress = {
          start: (total) => bar.start(total, 0, { rows: 0 }),
          update: (executions, rows) => bar.update(executions, { rows }),
        };
        let summary: ExportSummary;
        try {
          summary = await exportRecords(client, request, stdoutSink(io, abort), progress, abort.signal);
        } catch (error) {
          if (abort.signal.aborted) {
            throw new CliError(
              'standard output closed before the export finished; the state was not advanced',
            );
          }
          throw error;
        } finally {
          bar.stop();
        }
        io.stderr.write(`wfapi: ${describe(kind, options.state, summary)}\n`);
      },
      (_kind, options) => options,
    ),
  );
  registerTraces(command, io);
}

/** The closing line on standard error: what was written and where the state now stands. */
function describe(kind: ExportKind, statePath: string | undefined, summary: ExportSummary): string {
  const { window } = summary;
  if (summary.empty) {
    return `nothing new to export: executions from ${formatInstant(window.from!)} on have not settled yet (the window ends at ${formatInstant(window.to!)}: --until, or now minus --lag)`;
  }
  const lines = kind === 'executions' ? '' : ` of ${plural(summary.executions, 'execution')}`;
  const range = window.to ? ` started up to ${formatInstant(window.to)}` : '';
  const saved = statePath === undefined ? '' : `; state saved to ${statePath}`;
  return `exported ${plural(summary.rows, ROW_NOUNS[kind])}${lines}${range}${saved}`;
}

/**
 * The run's standard output with backpressure; a closed pipe (EPIPE) aborts the export instead of
 * crashing. The error listener stays for the stream's life: an EPIPE may still come after the
 * last write, and each run has its own stream.
 */
function stdoutSink(io: CliIo, abort: AbortController): ExportSink {
  io.stdout.once('error', (error) => abort.abort(error));
  return {
    async write(text) {
      if (abort.signal.aborted) throw abort.signal.reason;
      if (text !== '' && !io.stdout.write(text)) await once(io.stdout, 'drain', { signal: abort.signal });
    },
  };
}
