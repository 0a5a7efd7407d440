import assert from 'node:assert/strict';
import { startWorker } from '../../src/lib/worker-thread.js';
import { apikey, postGraphql } from '../http/http-client.js';

/**
 * Latency of a cheap probe while hostile requests run: the measure behind "one request must never
 * stall the server". The hostile loops and the probe run side by side for `durationMs`; the probe
 * runs one request at a time, as a dashboard polling the API would.
 */
export interface LatencyUnderLoad {
  /** Probe latencies in ms, ascending. */
  readonly samples: readonly number[];
  readonly p50: number;
  readonly p99: number;
  /** Hostile requests completed while the probe ran. */
  readonly hostileRequests: number;
}

/**
 * Hostile requests as data, so that a worker thread can send them: each request is a POST whose
 * body and header values have every `{{i}}` replaced by the request's index (a new document, a new
 * guess), taken from `requests` in turn.
 */
export interface HostileLoad {
  readonly requests: readonly {
    readonly url: string;
    readonly headers: Record<string, string>;
    readonly body: string;
  }[];
  readonly concurrency: number;
  /** How many to send in all; without it, until told to stop. */
  readonly total?: number;
}

/** What the worker reports once it is done: requests answered, and how many of each answer (status and error code). */
interface HostileResult {
  readonly completed: number;
  readonly statuses: Record<string, number>;
}

export async function latencyWhile(options: {
  readonly hostile: HostileLoad;
  readonly probe: () => Promise<unknown>;
  readonly durationMs: number;
  /** Pause between probes, so that the probe itself is not a load. */
  readonly probeIntervalMs?: number;
}): Promise<LatencyUnderLoad> {
  const { hostile, probe, durationMs, probeIntervalMs = 10 } = options;
  // The attacker runs on its own thread, as it would on its own machine: only the server's work
  // shares this thread with the probe.
  const attacker = hostile.concurrency > 0 ? startHostileWorker(hostile) : undefined;
  try {
    if (attacker) await attacker.started;
    // Let the hostile requests start before measuring.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const until = performance.now() + durationMs;
    const samples: number[] = [];
    while (performance.now() < until) {
      const started = performance.now();
      await probe();
      samples.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, probeIntervalMs));
    }
    const hostileRequests = attacker ? await attacker.stop() : 0;
    samples.sort((a, b) => a - b);
    const at = (p: number) =>
      samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))] ?? 0;
    return { samples, p50: at(50), p99: at(99), hostileRequests };
  } finally {
    await attacker?.worker.terminate();
  }
}

function startHostileWorker(load: HostileLoad) {
  const worker = startWorker(new URL('./hostile-worker.js', import.meta.url), { workerData: load });
  let onStarted: () => void = () => {};
  let onDone: (result: HostileResult) => void = () => {};
  let onError: (error: Error) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    onError = reject;
  });
  failed.catch(() => {});
  const started = new Promise<void>((resolve) => {
    onStarted = resolve;
  });
  const done = new Promise<HostileResult>((resolve) => {
    onDone = resolve;
  });
  worker.on('message', (m: { started?: true; error?: string } & Partial<HostileResult>) => {
    if (m.started) onStarted();
    else if (m.error !== undefined) onError(new Error(`the hostile requests failed: ${m.error}`));
    else onDone({ completed: m.completed ?? 0, statuses: m.statuses ?? {} });
  });
  worker.on('error', onError);
  return {
    worker,
    started: Promise.race([started, failed]),
    /** Once every request is answered: after `total` of them, or after `stop()`. */
    done: Promise.race([done, failed]),
    stop(): Promise<number> {
      worker.postMessage('stop');
      return Promise.race([done, failed]).then((result) => result.completed);
    },
  };
}

/**
 * What the hostile requests were answered and how the bystander fared while they ran: `total`
 * hostile requests sent from a worker thread while the probe runs one request at a time, back to
 * back, until the last hostile answer. Counts, not a fixed window, so a quiet machine is quick.
 */
export async function bystanderWhile(options: {
  readonly hostile: HostileLoad & { readonly total: number };
  readonly probe: () => Promise<unknown>;
}): Promise<{ readonly samples: readonly number[]; readonly statuses: Record<string, number> }> {
  const attacker = startHostileWorker(options.hostile);
  try {
    await attacker.started;
    let over = false;
    const finished = attacker.done.finally(() => {
      over = true;
    });
    const samples: number[] = [];
    while (!over) {
      const started = performance.now();
      await options.probe();
      samples.push(performance.now() - started);
    }
    const { statuses } = await finished;
    return { samples: samples.sort((a, b) => a - b), statuses };
  } finally {
    await attacker.worker.terminate();
  }
}

/**
 * Asserts behaviour, not a latency figure: every hostile request was answered with one of
 * `refusedWith` (status and error code, as `400 GRAPHQL_VALIDATION_FAILED`; the probe itself asserts that each of its answers is right), and the bystander was
 * never stalled: its median under `medianMs` and its slowest under `slowestMs`, bounds a loaded
 * two-core machine keeps (a scheduler's noise has put a p99 at 137 ms) and a stall breaks (the
 * fragment bomb held the event loop for seconds per request). The figures (p50, p99 against a
 * 50 ms target) are bench/bystander.ts's, on a quiet machine.
 */
export async function assertBystanderServed(
  t: { diagnostic(message: string): void },
  load: Parameters<typeof bystanderWhile>[0] & {
    readonly refusedWith: readonly string[];
    readonly medianMs?: number;
    readonly slowestMs?: number;
  },
): Promise<void> {
  const { refusedWith, medianMs = 1_000, slowestMs = 5_000 } = load;
  const { samples, statuses } = await bystanderWhile(load);
  const answered = Object.values(statuses).reduce((sum, n) => sum + n, 0);
  const median = samples[Math.floor(samples.length / 2)] ?? 0;
  const slowest = samples.at(-1) ?? 0;
  t.diagnostic(
    `bystander: ${samples.length} probes, median ${median.toFixed(1)} ms, slowest ${slowest.toFixed(1)} ms; hostile answers ${JSON.stringify(statuses)}`,
  );
  assert.equal(
    answered,
    load.hostile.total,
    `only ${answered} of ${load.hostile.total} hostile requests answered`,
  );
  for (const status of Object.keys(statuses)) {
    assert.ok(
      refusedWith.includes(status),
      `a hostile request was answered ${status}: ${JSON.stringify(statuses)}`,
    );
  }
  assert.ok(samples.length > 0, 'the bystander sent nothing while the hostile requests ran');
  assert.ok(
    median < medianMs,
    `the bystander's median was ${median.toFixed(0)} ms while the hostile requests ran`,
  );
  assert.ok(
    slowest < slowestMs,
    `the bystander waited ${slowest.toFixed(0)} ms once while the hostile requests ran`,
  );
}

/** The bystander's probe: another organization's trivial query, which must answer 200. */
export function trivialQueryOf(url: string, key: string): () => Promise<void> {
  return async () => {
    const answer = await postGraphql(url, apikey(key), { query: '{ getOrganization { displayName } }' });
    assert.equal(answer.status, 200);
  };
}

/** One GraphQL request with an API key, timed from send to the whole answer read. */
export async function timedPost(
  url: string,
  key: string,
  query: string,
): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Apikey ${key}` },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  return { status: response.status, ms: performance.now() - started, text };
}
