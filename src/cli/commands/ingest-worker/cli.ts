import type { Command } from 'commander';
import { type IngestWorkerFlags, ingestWorkerMain, workerConfig } from './main.js';

export function register(program: Command): void {
  program
    .command('ingest-worker')
    .description(
      'Consume NDJSON records from the NATS JetStream stream WFAPI_INGEST into the database (PostgreSQL when DATABASE_URL is set)',
    )
    .option('--nats <url>', 'NATS server URL(s), comma-separated (env WFAPI_NATS_URL)')
    .action(async (flags: IngestWorkerFlags) => {
      const config = workerConfig(process.env, flags);
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const stats = await ingestWorkerMain(config, controller.signal, log);
      log(
        `wfapi ingest-worker stopped: ${stats.messages} messages, ${stats.accepted} records accepted, ${stats.rejected} rejected`,
      );
    });
}
