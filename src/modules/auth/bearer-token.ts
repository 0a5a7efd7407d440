import { timingSafeEqual } from 'node:crypto';
import { sha256 } from '../../lib/sha256.js';

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * A check of `Authorization: Bearer <token>` against one configured operator token. The
 * comparison is constant-time: both sides are hashed to the same length first, so neither the
 * token's length nor how much of it matches shows in the response time.
 */
export function bearerTokenCheck(expected: string): (header: string | undefined) => boolean {
  const expectedDigest = sha256(expected);
  return (header) => {
    const match = BEARER.exec(header ?? '');
    return match !== null && timingSafeEqual(sha256(match[1]!), expectedDigest);
  };
}
