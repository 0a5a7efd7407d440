import { parentPort, workerData } from 'node:worker_threads';
import type { HostileLoad } from './latency.js';

/**
 * The attacker's side of `latencyWhile`, on a thread of its own: building and sending hostile
 * requests costs CPU, and on the server's thread that cost would be counted against the server.
 * It sends until told to stop, then reports how many requests completed.
 */
const { requests, concurrency } = workerData as HostileLoad;
const port = parentPort;
if (!port) throw new Error('hostile-worker runs as a worker thread');

let stopped = false;
let index = 0;
let completed = 0;
const fill = (text: string, i: number) => text.replaceAll('{{i}}', String(i));

async function loop(): Promise<void> {
  while (!stopped) {
    const i = index++;
    const request = requests[i % requests.length];
    if (!request) return;
    const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, fill(v, i)]));
    const response = await fetch(request.url, { method: 'POST', headers, body: fill(request.body, i) });
    await response.arrayBuffer();
    completed += 1;
  }
}

port.on('message', () => {
  stopped = true;
});
const loops = Array.from({ length: concurrency }, loop);
port.postMessage({ started: true });
Promise.all(loops).then(
  () => port.postMessage({ completed }),
  (error: unknown) => port.postMessage({ error: String(error) }),
);
