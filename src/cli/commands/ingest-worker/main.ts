import { INGEST_OBSERVERS } from '../../../app.js';
import { type Config, loadConfig } from '../../../config.js';
import type { Database } from '../../../db/database.js';
import { openDatabase } from '../../../db/open.js';
import { type IngestWorkerStats, startIngestWorker } from '../../../ingest/nats-worker.js';
import { recountRollups } from '../../../ingest/recount.js';
import { CliError, EXIT } from '../../exit-codes.js';
import { oneLine } from '../serve/main.js';

export interface IngestWorkerFlags {
  nats?: string | undefined;
}

/** The environment's configuration, `--nats` taking precedence over WFAPI_NATS_URL. */
export function workerConfig(
  env: Readonly<Record<string, string | undefined>>,
  flags: IngestWorkerFlags,
): Config {
  let config: Config;
  try {
    config = loadConfig({ ...env, ...(flags.nats !== undefined ? { WFAPI_NATS_URL: flags.nats } : {}) });
  } catch (error) {
    throw new CliError(oneLine(error), EXIT.USAGE);
  }
  if (!config.nats.url) throw new CliError('a NATS server is required: --nats or WFAPI_NATS_URL', EXIT.USAGE);
  return config;
}

/**
 * Consumes the ingest stream until `stopSignal` fires (SIGTERM, SIGINT): the batch in hand is
 * finished and acknowledged, then the connections close. Resolves with the totals.
 */
export async function ingestWorkerMain(
  config: Config,
  stopSignal: AbortSignal,
  log: (line: string) => void,
): Promise<IngestWorkerStats> {
  let db: Database;
  try {
    db = await openDatabase(config, { recountRollups });
  } catch (error) {
    throw new CliError(`cannot open the database: ${oneLine(error)}`);
  }
  try {
    let worker: Awaited<ReturnType<typeof startIngestWorker>>;
    try {
      worker = await startIngestWorker({
        db,
        natsUrl: config.nats.url!,
        batchMessages: config.nats.batchMessages,
        ackWaitMs: config.nats.ackWaitMs,
        maxDeliveries: config.nats.maxDeliveries,
        batchSize: config.limits.ingestBatchSize,
        observers: INGEST_OBSERVERS,
        log,
      });
    } catch (error) {
      throw new CliError(
        `cannot consume from NATS at ${config.nats.url}: ${oneLine(error)}`,
        EXIT.UNAVAILABLE,
      );
    }
    log(
      `wfapi ingest-worker: ${config.nats.url} into ${config.databaseUrl ? 'PostgreSQL' : `the embedded database in ${config.dataDir}`}`,
    );
    const stop = () => {
      log('stopping: finishing the batch in hand');
      void worker.stop();
    };
    if (stopSignal.aborted) stop();
    else stopSignal.addEventListener('abort', stop, { once: true });
    await worker.stopped;
    await worker.stop();
    return worker.stats;
  } finally {
    await db.close();
  }
}
