/** Retry timing: exponential backoff with full jitter, `Retry-After`, and waits a signal can cut short. */

export interface RetryPolicy {
  /** Attempts after the first one. */
  readonly retries: number;
  /** The first backoff ceiling; each retry doubles it. */
  readonly baseDelayMs: number;
  /** No single wait is longer; a `Retry-After` beyond it ends the retries instead. */
  readonly maxDelayMs: number;
}

/**
 * How long to wait before retry number `attempt` (0 for the first retry), or undefined to stop.
 * Without `Retry-After` the wait is uniform in [0, min(max, base * 2^attempt)] ("full jitter"),
 * so that many clients failing together do not come back together. With it, the wait is the
 * server's delay plus up to one base delay of jitter, and never shorter than what it asked.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= policy.retries) return undefined;
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > policy.maxDelayMs) return undefined;
    return (
      retryAfterMs + Math.floor(random() * Math.min(policy.baseDelayMs, policy.maxDelayMs - retryAfterMs))
    );
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
