import { performance } from 'node:perf_hooks';
import { type Summary, summarise } from './stats.js';

/**
 * Runs `concurrency` workers that each issue one request at a time (no pipelining) until
 * `seconds` have passed; returns throughput and latency percentiles. A request that throws or
 * resolves false counts as an error.
 */
export async function closedLoop(
  request: () => Promise<boolean>,
  options: { concurrency: number; seconds: number },
): Promise<Summary> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      let ok = false;
      try {
        ok = await request();
      } catch {
        ok = false;
      }
      if (ok) latencies.push(performance.now() - t0);
      else errors += 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return summarise(latencies, errors, (performance.now() - started) / 1000);
}
