import { type Command, Option } from 'commander';
import { type RecordCounts, totalRecords } from '../../../simulate/index.js';
import { EXIT, QuietExit } from '../../exit-codes.js';
import { type CliIo, onSignal } from '../../io.js';
import { progressBar } from '../../render/progress-bar.js';
import { type SimulateFlags, type SimulateSummary, simulateMain, simulateSettings } from './main.js';

const SHOWN_REJECTIONS = 20;
const number = (n: number) => n.toLocaleString('en-US');

function describe(counts: RecordCounts): string {
  return Object.entries(counts)
    .map(([type, n]) => `${number(n)} ${type}${n === 1 ? '' : 's'}`)
    .join(', ');
}

/** The created organization goes to standard output, unless the records already do. */
function printSummary(io: CliIo, summary: SimulateSummary, recordsOnStdout: boolean): void {
  const total = totalRecords(summary.counts);
  const rate = Math.round(total / Math.max(summary.seconds, 0.001));
  io.stderr.write(
    `simulated ${number(total)} records (${describe(summary.counts)}) in ${summary.seconds.toFixed(1)} s ` +
      `(${number(rate)} records/s) for organization ${summary.organizationId}\n`,
  );
  if (summary.accepted !== undefined) {
    io.stderr.write(
      `the server accepted ${number(summary.accepted)}, rejected ${number(summary.rejectedCount)}\n`,
    );
  }
  for (const rejection of summary.rejected.slice(0, SHOWN_REJECTIONS)) {
    io.stderr.write(`line ${rejection.line}: ${rejection.error}\n`);
  }
  if (summary.rejectedCount > SHOWN_REJECTIONS) {
    io.stderr.write(`... and ${number(summary.rejectedCount - SHOWN_REJECTIONS)} more rejected lines\n`);
  }
  if (summary.tenant) {
    (recordsOnStdout ? io.stderr : io.stdout).write(
      `organization  ${summary.tenant.displayName} (${summary.tenant.organizationId})\n` +
        `member        ${summary.tenant.memberEmail} (ROOT, deploy access)\n` +
        `API key       ${summary.tenant.apiKey}\n` +
        'The API key is shown only this once; store it now.\n',
    );
  }
}

export function register(program: Command, io: CliIo): void {
  program
    .command('simulate')
    .description(
      'Generate a lifelike workflow platform (workflows, deployments, executions, events, logs) as NDJSON ' +
        'ingestion records: deterministic for a seed, to standard output, a file, or a server',
    )
    .option('--seed <text>', 'random seed: the same seed, options and --until give the same bytes', '1')
    .option('--days <n>', 'days of history, ending at --until', '30')
    .option('--workflows <n>', 'workflows of the organization', '20')
    .option(
      '--executions <n>',
      'exactly this many executions start in the history (--live then goes on at about the same rate)',
      '100000',
    )
    .option('--until <time>', 'end of the history, RFC 3339 (default: now)')
    .option(
      '--org <organizationId>',
      'the existing organization the records belong to (`wfapi orgs list` shows the ids)',
    )
    .addOption(new Option('--organization-id <uuid>', 'the older name of --org').hideHelp())
    .option(
      '--create-org',
      "first create an organization, a member with deploy access and an API key through the server's " +
        'admin interface (--to, else --url), and print them; the records belong to it',
    )
    .addOption(
      new Option(
        '--url <url>',
        'the server --create-org creates the organization on, without --to (default http://127.0.0.1:4000)',
      ).env('WFAPI_URL'),
    )
    .option(
      '--detail <level>',
      "full (events, every node's logs), compact (events, a few logs) or none",
      'full',
    )
    .option('-o, --out <file>', 'write to this file instead of standard output')
    .option('--to <url>', "send to a running server's ingestion endpoint (POST <url>/ingest) instead")
    .addOption(new Option('--token <token>', 'ingest token for --to').env('WFAPI_INGEST_TOKEN'))
    .addOption(
      new Option(
        '--admin-token <token>',
        'admin token for --create-org; with --to and no --org, it creates the organization too',
      ).env('WFAPI_ADMIN_TOKEN'),
    )
    .option('--live', 'after the history, keep producing what happens in real time until interrupted')
    .action(async (flags: SimulateFlags) => {
      const settings = simulateSettings(flags);
      const controller = new AbortController();
      const stop = () => controller.abort();
      const release = onSignal(io, stop);
      const bar = progressBar<{ executions: string | number; records: string | number }>(
        '{bar} {percentage}% | {executions} executions | {records} records',
        { stream: io.stderr },
      );
      bar.start(Math.max(settings.executions, 1), 0, { executions: 0, records: 0 });
      try {
        const summary = await simulateMain(settings, {
          stdout: io.stdout,
          signal: controller.signal,
          onProgress: (counts) =>
            bar.update(counts.execution, {
              executions: number(counts.execution),
              records: number(totalRecords(counts)),
            }),
          onNotice: (text) => io.stderr.write(`${text}\n`),
        });
        bar.stop();
        printSummary(io, summary, settings.to === undefined && settings.out === undefined);
        if (summary.rejectedCount > 0) throw new QuietExit(EXIT.FAILURE);
        if (controller.signal.aborted && !settings.live) {
          io.stderr.write('interrupted: the output is incomplete\n');
          throw new QuietExit(EXIT.FAILURE);
        }
      } finally {
        bar.stop();
        release();
      }
    });
}
