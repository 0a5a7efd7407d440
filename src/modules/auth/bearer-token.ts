import { timingSafeEqual } from 'node:crypto';
import { sha256 } from '../shared/sha256.js';

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

const digest = sha256;

/**
 * A check of `Authorization: Bearer <token>` against one configured operator token. The
 * comparison is constant-time: both sides are hashed to the same length first, so neither the
 * token's length nor how much of it matches shows in the response time.
 */
export function bearerTokenCheck(expected: string): (header: string | undefined) => boolean {
  const expectedDigest = digest(expected);
  return (header) => {
    const match = BEARER.exec(header ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), expectedDigest);
  };
}
