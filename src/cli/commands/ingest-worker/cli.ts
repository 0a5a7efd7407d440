import type { Command } from 'commander';
import { type CliIo, onSignal } from '../../io.js';
import { type IngestWorkerFlags, ingestWorkerMain, workerConfig } from './main.js';

export function register(program: Command, io: CliIo): void {
  program
    .command('ingest-worker')
    .description(
      'Consume NDJSON records from the NATS JetStream stream WFAPI_INGEST into the database (PostgreSQL when DATABASE_URL is set)',
    )
    .option('--nats <url>', 'NATS server URL(s), comma-separated (env WFAPI_NATS_URL)')
    .action(async (flags: IngestWorkerFlags) => {
      const config = workerConfig(io.env, flags);
      const controller = new AbortController();
      const release = onSignal(io, () => controller.abort());
      const log = (line: string) => io.stderr.write(`${line}\n`);
      const stats = await ingestWorkerMain(config, controller.signal, log).finally(release);
      log(
        `wfapi ingest-worker stopped: ${stats.messages} messages, ${stats.accepted} records accepted, ${stats.rejected} rejected`,
      );
    });
}
