/**
 * The thread that owns the embedded database (see embedded-database.ts): it opens PGlite on
 * the data directory given as workerData and runs the statements it receives, one at a time,
 * in the order received.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite } from '@electric-sql/pglite';
import { createPglite } from '../pglite.js';
import { StatisticsKeeper } from './analyze.js';
import { errorData, type WorkerOptions, type WorkerReply, type WorkerRequest } from './protocol.js';
import { WalCheckpointer } from './wal-checkpoint.js';
import { walAfter } from './wal-position.js';

const port = parentPort!;
const reply = (message: WorkerReply) => port.postMessage(message);

async function execute(db: PGlite, request: WorkerRequest): Promise<unknown[]> {
  switch (request.op) {
    case 'query':
      return (await db.query(request.text, request.params as unknown[] | undefined)).rows;
    case 'copy':
      await db.query(request.text, [], { blob: new Blob(request.chunks as string[]) });
      return [];
    case 'close':
      await db.close();
      return [];
  }
}

try {
  const options = workerData as WorkerOptions;
  const db = await createPglite(options.dataDir);
  const wal = new WalCheckpointer(db, options.walCheckpointBytes);
  const statistics = new StatisticsKeeper(db, options.analyzeMinBytes);
  await statistics.atOpen();
  // Statements run strictly one after the other: a transaction's statements arrive in order.
  let previous: Promise<unknown> = Promise.resolve();
  port.on('message', (request: WorkerRequest) => {
    previous = previous.then(async () => {
      try {
        reply({ id: request.id, rows: await execute(db, request) });
      } catch (error) {
        reply({ id: request.id, error: errorData(error) });
        return;
      }
      // After the answer, before the next statement: the upkeep PGlite's single backend lacks.
      // A checkpoint that fails (a full disk) is tried again after the next write, the statements
      // themselves then reporting the disk; so is an ANALYZE (statistics as autovacuum keeps them).
      const position = await walAfter(db, request).catch(() => undefined);
      if (position === undefined) return;
      await wal.at(position).catch(() => {});
      await statistics.at(position).catch(() => {});
    });
  });
  reply({ ready: true });
} catch (error) {
  reply({ failed: errorData(error) });
}
