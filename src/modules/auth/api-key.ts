import { randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { sha256 } from '../../lib/sha256.js';
import { dashedUuid } from '../../lib/uuid.js';

/**
 * API keys look like `wfk_<32 hex id><40 base62 secret><6 base62 checksum>` (82 characters):
 * - the `wfk_` prefix makes a leaked key recognisable to secret scanners;
 * - the id is the public lookup part (a uuid without dashes);
 * - the secret carries 238 bits of entropy; only its SHA-256 is stored (a slow hash adds nothing
 *   for a random secret of that size);
 * - the CRC32 checksum lets a scanner, and the server, reject a mistyped or made-up key offline.
 */
export const API_KEY_PREFIX = 'wfk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
/** The shape of a key (the checksum aside): what GraphiQL waits for before it sends anything. */
export const KEY_PATTERN = new RegExp(
  `^${API_KEY_PREFIX}([0-9a-f]{32})([0-9A-Za-z]{${SECRET_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

export interface GeneratedApiKey {
  readonly id: string;
  readonly key: string;
  readonly secretHash: Buffer;
}

export interface ParsedApiKey {
  readonly id: string;
  readonly secret: string;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export function hashSecret(secret: string): Buffer {
  return sha256(secret);
}

/** The key text of an id (32 hex digits) and a secret, with its checksum. */
export function composeApiKey(idHex: string, secret: string): string {
  const body = `${API_KEY_PREFIX}${idHex}${secret}`;
  return body + checksum(body);
}

export function generateApiKey(): GeneratedApiKey {
  const idHex = randomBytes(16).toString('hex');
  const secret = randomBase62(SECRET_LENGTH);
  return { id: dashedUuid(idHex), key: composeApiKey(idHex, secret), secretHash: hashSecret(secret) };
}

/** Splits a key into id and secret, or undefined when it is not a well-formed key with a valid checksum. */
export function parseApiKey(key: string): ParsedApiKey | undefined {
  const match = KEY_PATTERN.exec(key);
  if (!match) return undefined;
  const [, idHex, secret] = match as unknown as [string, string, string];
  // The pattern is anchored: the key is valid when it is exactly what its id and secret compose.
  if (composeApiKey(idHex, secret) !== key) return undefined;
  return { id: dashedUuid(idHex), secret };
}

/** Constant-time comparison of a presented secret with the stored hash. */
export function secretMatches(secret: string, storedHash: Uint8Array): boolean {
  const presented = hashSecret(secret);
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash);
}
