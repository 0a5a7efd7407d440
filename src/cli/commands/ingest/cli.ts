import type { Command } from 'commander';
import { DEFAULT_CHUNK_LINES } from '../../../client/ingest-client.js';
import { EXIT, QuietExit } from '../../exit-codes.js';
import { type CliIo, onSignal, stdinOf } from '../../io.js';
import { plural } from '../../render/plural.js';
import { progressBar } from '../../render/progress-bar.js';
import {
  DEFAULT_NATS_WAIT_SECONDS,
  type IngestCommandProgress,
  type IngestFlags,
  type IngestSummary,
  ingestMain,
  ingestNatsMain,
  ingestSettings,
  type NatsIngestSummary,
  natsSettings,
} from './main.js';
import { DEFAULT_NATS_CHUNK_LINES } from './nats-publish.js';

/** Rejections printed at the end; the summary gives the total. */
const SHOWN_REJECTIONS = 20;

function printSummary(io: CliIo, source: string, summary: IngestSummary): void {
  const rate = summary.seconds > 0 ? Math.round(summary.lines / summary.seconds) : summary.lines;
  io.stdout.write(
    `${source === '-' ? 'stdin' : source}: ${summary.accepted} accepted, ${summary.rejectedCount} rejected, ` +
      `${plural(summary.lines, 'line')} in ${summary.seconds.toFixed(1)} s (${rate} lines/s)\n`,
  );
  for (const rejection of summary.rejected.slice(0, SHOWN_REJECTIONS)) {
    io.stderr.write(`line ${rejection.line}: ${rejection.error}\n`);
  }
  if (summary.rejectedCount > SHOWN_REJECTIONS) {
    io.stderr.write(`... and ${plural(summary.rejectedCount - SHOWN_REJECTIONS, 'more rejected line')}\n`);
  }
  if (summary.rejected.some((rejection) => rejection.error.startsWith('unknown organizationId'))) {
    io.stderr.write(
      'hint: records are accepted only for an organization that exists on the server: `wfapi orgs list` shows ' +
        'them, `wfapi orgs create` makes one, and `wfapi simulate --org <id>` (or --create-org) writes records for it\n',
    );
  }
}

function printNatsSummary(io: CliIo, source: string, summary: NatsIngestSummary): void {
  const rate = summary.seconds > 0 ? Math.round(summary.lines / summary.seconds) : summary.lines;
  const duplicates = summary.duplicates > 0 ? ` (${summary.duplicates} already held by the stream)` : '';
  const worker = summary.worker;
  const rejectedCount = summary.rejectedCount + (worker?.rejectedCount ?? 0);
  io.stdout.write(
    `${source === '-' ? 'stdin' : source}: ${summary.published} lines published to ${summary.subject} in ` +
      `${summary.messages} messages${duplicates}, ${rejectedCount} rejected, ` +
      `${summary.lines} lines in ${summary.seconds.toFixed(1)} s (${rate} lines/s)` +
      (worker ? '\n' : `; the worker reports rejected lines on ${summary.rejectedSubject}\n`),
  );
  const rejected = [...summary.rejected, ...(worker?.rejected ?? [])].sort((a, b) => a.line - b.line);
  for (const rejection of rejected.slice(0, SHOWN_REJECTIONS)) {
    io.stderr.write(`line ${rejection.line}: ${rejection.error}\n`);
  }
  if (rejectedCount > SHOWN_REJECTIONS) {
    io.stderr.write(
      `... and ${rejectedCount - SHOWN_REJECTIONS} more rejected lines (all on ${summary.rejectedSubject})\n`,
    );
  }
  for (const dead of worker?.deadLettered ?? []) {
    io.stderr.write(
      `message ${dead.sequence} was not stored after repeated failures and was moved to ${dead.subject}: ${dead.reason}\n`,
    );
  }
  if (worker && worker.unprocessed > 0) {
    io.stderr.write(
      `${worker.unprocessed} messages were not yet processed by a worker when the wait ended (--wait); ` +
        `their rejected lines will be reported on ${summary.rejectedSubject}\n`,
    );
  }
}

const COUNTERS = '{records} records | {rate} records/s | {rejected} rejected';

/**
 * Records sent, their rate and the rejected count, with a bar over the file's bytes when the
 * size is known (not for standard input).
 */
function uploadProgress(io: CliIo) {
  const started = performance.now();
  const bar = progressBar<{ records: number; rate: number; rejected: number }>(
    (totalBytes) => (totalBytes ? `{bar} {percentage}% | ${COUNTERS}` : COUNTERS),
    { stream: io.stderr },
  );
  return {
    bar,
    update(progress: IngestCommandProgress) {
      const seconds = Math.max((performance.now() - started) / 1000, 0.001);
      const payload = {
        records: progress.lines,
        rate: Math.round(progress.lines / seconds),
        rejected: progress.rejected,
      };
      bar.start(progress.totalBytes ?? 0, progress.bytes, payload);
      bar.update(progress.bytes, payload);
    },
  };
}

export function register(program: Command, io: CliIo): void {
  program
    .command('ingest')
    .description("Stream an NDJSON file (or - for standard input) to a server's ingestion endpoint")
    .argument('<file>', 'NDJSON file, one record a line, or - for standard input')
    .option('--url <url>', 'server base URL (env WFAPI_URL, default http://127.0.0.1:4000)')
    .option('--token <token>', 'ingest token (env WFAPI_INGEST_TOKEN)')
    .option('--retries <n>', 'retries of a failed chunk, with exponential backoff (default 8)')
    .option(
      '--chunk-lines <n>',
      `lines per request (default ${DEFAULT_CHUNK_LINES}), or per message with --nats (default ${DEFAULT_NATS_CHUNK_LINES})`,
    )
    .option(
      '--nats <url>',
      'publish to NATS JetStream (subject wfapi.ingest.<organization>) instead of POSTing',
    )
    .option('--organization <id>', 'with --nats: the organization whose subject the lines go to')
    .option(
      '--wait <seconds>',
      `with --nats: how long to wait for the worker to report rejected lines (default ${DEFAULT_NATS_WAIT_SECONDS}; 0: do not wait)`,
    )
    .option('--json', 'print the result as JSON instead of a summary')
    .action(async (file: string, flags: IngestFlags & { json?: boolean }) => {
      if (flags.nats !== undefined) {
        const target = natsSettings(flags);
        const progress = uploadProgress(io);
        try {
          const summary = await ingestNatsMain({
            ...target,
            source: file,
            stdin: stdinOf(io),
            onProgress: progress.update,
          });
          progress.bar.stop();
          if (flags.json) io.stdout.write(`${JSON.stringify(summary)}\n`);
          else printNatsSummary(io, file, summary);
          const worker = summary.worker;
          if (
            summary.rejectedCount + (worker?.rejectedCount ?? 0) > 0 ||
            (worker?.deadLettered.length ?? 0) > 0
          )
            throw new QuietExit(EXIT.FAILURE);
        } finally {
          progress.bar.stop();
        }
        return;
      }
      const settings = ingestSettings(io.env, flags);
      const controller = new AbortController();
      const interrupt = () =>
        controller.abort(new Error('interrupted; running the same command again is safe'));
      const release = onSignal(io, interrupt);
      const progress = uploadProgress(io);
      try {
        const summary = await ingestMain({
          ...settings,
          source: file,
          stdin: stdinOf(io),
          signal: controller.signal,
          onProgress: progress.update,
          onRetry: ({ attempt, delayMs, reason }) =>
            progress.bar.note(`retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s: ${reason}`),
        });
        progress.bar.stop();
        if (flags.json) io.stdout.write(`${JSON.stringify(summary)}\n`);
        else printSummary(io, file, summary);
        if (summary.rejectedCount > 0) throw new QuietExit(EXIT.FAILURE);
      } finally {
        progress.bar.stop();
        release();
      }
    });
}
