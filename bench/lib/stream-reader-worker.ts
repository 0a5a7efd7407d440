import { parentPort, workerData } from 'node:worker_threads';
import { Client } from '../../src/client/index.js';

/**
 * The readers of `GET /events` in bench/push-overhead.ts, on a thread of their own: as on another
 * machine, their parsing is not charged to the thread that generates and sends the ingestion.
 * Reads until told to stop, then reports how many events arrived.
 */
const { url, apiKey, count } = workerData as { url: string; apiKey: string; count: number };
const port = parentPort;
if (!port) throw new Error('stream-reader-worker runs as a worker thread');

const controller = new AbortController();
let events = 0;
const readers = Array.from({ length: count }, async () => {
  const client = new Client({ url, apiKey });
  for await (const _event of client.events({}, { signal: controller.signal })) events++;
});

port.on('message', async () => {
  controller.abort();
  await Promise.allSettled(readers);
  port.postMessage(events);
});
