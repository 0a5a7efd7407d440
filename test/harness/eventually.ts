import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Resolves with `condition()`'s value once it is truthy, checked every `everyMs`; fails with
 * `what` once `timeoutMs` has passed. For a condition that no event announces (a row written, a
 * request recorded by another party): the wait lasts as long as the condition takes, never a fixed
 * time, and the deadline is generous because only a failure ever reaches it.
 */
export async function eventually<T>(
  condition: () => T | Promise<T>,
  what: string | (() => string),
  { timeoutMs = 15_000, everyMs = 20 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (performance.now() > deadline)
      throw new Error(`after ${timeoutMs} ms: ${typeof what === 'string' ? what : what()}`);
    await sleep(everyMs);
  }
}

/**
 * What `read` answers once `done` holds of it (a state another party reaches without announcing
 * it: Alertmanager's alerts, the rule timer's evaluations); on failure, the last answer read.
 */
export async function eventuallyRead<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  options: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  let last: T | undefined;
  const found = await eventually(
    async () => {
      last = await read();
      return done(last) ? { value: last } : undefined;
    },
    () => `${what}: ${JSON.stringify(last)}`,
    options,
  );
  return found.value;
}
