import type { Command } from 'commander';
import { type ExecutionEvent, WorkflowExecutionStatusValues } from '../../../client/index.js';
import { type ConnectionOptions, withClient, withConnectionOptions } from '../../client-options.js';
import { type CliIo, onSignal } from '../../io.js';
import { enumListOption } from '../../option-parsers.js';
import { type Palette, statusStyle, stdoutPalette } from '../../render/colors.js';
import { elapsed, formatDuration, formatInstant } from '../../time-input.js';
import { watchExecutions } from './main.js';

interface WatchOptions extends ConnectionOptions {
  workflow?: string;
  status?: (typeof WorkflowExecutionStatusValues)[number][];
  lastEventId?: string;
  history?: boolean;
}

export function register(program: Command, io: CliIo): void {
  withConnectionOptions(
    program
      .command('watch')
      .description(
        'Print each execution change as it happens (GET /events), reconnecting without gaps until Ctrl-C',
      )
      .option('--workflow <workflow>', 'only this workflow (uuid or exact name)')
      .option(
        '--status <statuses>',
        `only these statuses, comma-separated or repeated (${WorkflowExecutionStatusValues.join(', ')})`,
        enumListOption(WorkflowExecutionStatusValues),
      )
      .option('--last-event-id <id>', 'resume after this event id (`eventId` of --json lines)')
      .option(
        '--history',
        'also changes of executions that were already old when ingested (a backfill), not only live ones',
      ),
  ).action(
    withClient(
      async (client, options: WatchOptions) => {
        const controller = new AbortController();
        const stop = () => controller.abort();
        const release = onSignal(io, stop);
        const p = stdoutPalette(io);
        try {
          await watchExecutions(
            client,
            {
              workflow: options.workflow,
              status: options.status,
              lastEventId: options.lastEventId,
              history: options.history,
            },
            (event) =>
              io.stdout.write(
                options.json
                  ? `${JSON.stringify({ eventId: event.id, execution: event.execution })}\n`
                  : `${line(event, p)}\n`,
              ),
            {
              signal: controller.signal,
              onReconnect: ({ error, delayMs }) =>
                io.stderr.write(`wfapi: ${error.message}; reconnecting in ${formatDuration(delayMs)}\n`),
            },
          );
        } finally {
          release();
        }
      },
      (options) => options,
    ),
  );
}

/** One change: when it started, its status, the workflow, the uuid, how long, the first error. */
function line({ execution: e }: ExecutionEvent, p: Palette): string {
  const status = p[statusStyle(e.status)](e.status.padEnd(11));
  const error = e.errors?.find((x) => x)?.error;
  return [
    formatInstant(e.startedAt),
    status,
    e.workflowName,
    p.dim(e.uuid),
    elapsed(e.startedAt, e.finishedAt),
    ...(error ? [p.red(error)] : []),
  ].join('  ');
}
