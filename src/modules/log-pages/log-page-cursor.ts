import { badInput } from '../../errors.js';
import type { LineKey } from './log-pages.store.js';

const MAX_BIGINT = 2n ** 63n - 1n;
const KEY = /^(-?\d{1,19})\.(\d{1,19})$/;

/** The opaque `next` of a page: its last line's key, base64url-encoded. */
export const encodeCursor = (key: LineKey): string =>
  Buffer.from(`${key.atMicros}.${key.seq}`).toString('base64url');

/** The key a cursor this query gave stands for; anything else is BAD_USER_INPUT. */
export function decodeCursor(cursor: string): LineKey {
  const match = KEY.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  const [atMicros, seq] = [match?.[1], match?.[2]];
  if (
    atMicros === undefined ||
    seq === undefined ||
    BigInt(atMicros) > MAX_BIGINT ||
    BigInt(atMicros) < -MAX_BIGINT ||
    BigInt(seq) > MAX_BIGINT ||
    encodeCursor({ atMicros, seq }) !== cursor
  ) {
    throw badInput('after must be the next of an earlier workflowExecutionLogPage answer');
  }
  return { atMicros, seq };
}
