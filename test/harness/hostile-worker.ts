import { parentPort, workerData } from 'node:worker_threads';
import type { HostileLoad } from './latency.js';

/**
 * The attacker's side of `latencyWhile`, on a thread of its own: building and sending hostile
 * requests costs CPU, and on the server's thread that cost would be counted against the server.
 * It sends `total` requests, or until told to stop, then reports how many completed and how they
 * were answered (status and error code, as `400 GRAPHQL_VALIDATION_FAILED`).
 */
const { requests, concurrency, total = Number.POSITIVE_INFINITY } = workerData as HostileLoad;
const port = parentPort;
if (!port) throw new Error('hostile-worker runs as a worker thread');

let stopped = false;
let index = 0;
let completed = 0;
const statuses: Record<string, number> = {};
/** The first error's code in a JSON answer, or ''. */
const codeOf = (text: string): string => {
  try {
    return String(JSON.parse(text)?.errors?.[0]?.extensions?.code ?? JSON.parse(text)?.code ?? '');
  } catch {
    return '';
  }
};
const fill = (text: string, i: number) => text.replaceAll('{{i}}', String(i));

async function loop(): Promise<void> {
  while (!stopped) {
    const i = index++;
    if (i >= total) return;
    const request = requests[i % requests.length];
    if (!request) return;
    const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, fill(v, i)]));
    const response = await fetch(request.url, { method: 'POST', headers, body: fill(request.body, i) });
    const answer = `${response.status} ${codeOf(await response.text())}`.trim();
    completed += 1;
    statuses[answer] = (statuses[answer] ?? 0) + 1;
  }
}

port.on('message', () => {
  stopped = true;
});
const loops = Array.from({ length: concurrency }, loop);
port.postMessage({ started: true });
Promise.all(loops).then(
  () => port.postMessage({ completed, statuses }),
  (error: unknown) => port.postMessage({ error: String(error) }),
);
