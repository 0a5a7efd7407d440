/**
 * What the insight tests compare answers with: exact figures computed in the test from the rows it
 * stored, and the small helpers every insight test file shares.
 */
import assert from 'node:assert/strict';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const iso = (ms: number) => new Date(ms).toISOString();
export const at = (text: string) => Date.parse(text);
/** An instant as the API writes a Time: milliseconds only when they are not zero. */
export const timeText = (ms: number) => iso(ms).replace('.000Z', 'Z');

/** The nearest-rank percentile: the ceil(p% x n)-th smallest value (the smallest for p = 0). */
export function nearestRank(values: readonly number[], p: number): number {
  assert.ok(values.length > 0, 'a percentile of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]!;
}

/** Asserts `actual` lies within `tolerance` (relative) of `exact`. */
export function assertWithin(actual: number | null, exact: number, tolerance: number, what: string): void {
  assert.ok(actual !== null, `${what} is null`);
  const error = exact === 0 ? Math.abs(actual) : Math.abs(actual - exact) / exact;
  assert.ok(error <= tolerance, `${what}: ${actual} is ${(error * 100).toFixed(2)}% from ${exact}`);
}

/** A random word of letters that are not hex digits, so that error grouping leaves it alone. */
export function word(random: () => number = Math.random, length = 10): string {
  return Array.from({ length }, () => 'ghijklmnopqrstuvwxyz'[Math.floor(random() * 20)]).join('');
}
