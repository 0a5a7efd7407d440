import { LRUCache } from 'lru-cache';
import { sha256 } from '../lib/sha256.js';

/**
 * Error grouping: a message's variable parts (quoted strings, uuids, times, chain addresses, hex
 * strings, numbers) become placeholders, so that `index out of range [7] with length 7` and
 * `index out of range [12] with length 12` share one pattern. The fingerprint is a hash of the
 * pattern alone: the same pattern has the same fingerprint in every process, forever.
 */
const PLACEHOLDERS: ReadonlyArray<readonly [RegExp, string]> = [
  // Quoted text first, so that whatever it holds counts as one variable part.
  [/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '<str>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  // Timestamps before numbers, so that a time is one variable part rather than six.
  [/\b\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?/g, '<time>'],
  [/\b0x[0-9a-f]{40}\b/gi, '<address>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  // Bare hex of 16 or more characters with both digits and letters (hashes, ids), not words.
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{16,}\b/gi, '<hex>'],
  // Numbers not glued to a word before them (`v2`, `sha256` and `v1.2.3` stay), with a fraction or
  // exponent; a dotted run (`1.2.3`, `10.0.0.1`) is one number, not a number and a dotted tail.
  [/(?<![\w.])\d+(?:\.\d+)*(?:e[-+]?\d+)?/gi, '<num>'],
];

export function errorPattern(message: string): string {
  let pattern = message;
  for (const [expression, placeholder] of PLACEHOLDERS) pattern = pattern.replace(expression, placeholder);
  return pattern;
}

/** 16 hex characters of the SHA-256 of the pattern. */
export function fingerprintOf(pattern: string): string {
  return sha256(pattern).toString('hex').slice(0, 16);
}

export interface ErrorGroupOf {
  readonly fingerprint: string;
  readonly pattern: string;
}

/** The groups of recent messages (the same messages recur across a batch and across batches). */
const cache = new LRUCache<string, ErrorGroupOf>({ max: 10_000 });

/** The group of a message (cached: the same messages recur across a batch). */
export function errorGroupOf(message: string): ErrorGroupOf {
  let group = cache.get(message);
  if (group === undefined) {
    const pattern = errorPattern(message);
    group = { fingerprint: fingerprintOf(pattern), pattern };
    cache.set(message, group);
  }
  return group;
}
