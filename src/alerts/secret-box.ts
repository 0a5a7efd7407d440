/**
 * Webhook signing secrets at rest: AES-256-GCM under the server's alert key, so that a copy of
 * the database alone cannot sign. The key is WFAPI_ALERTS_SECRET_KEY, or else derived from the
 * admin token (HKDF-SHA256): every instance configured alike can sign, and rotating the token
 * without setting the key makes the stored secrets unreadable (create the rules again).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Config } from '../config.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key that seals secrets; undefined when the server has neither an alert key nor an admin token. */
export function alertKeyOf(config: Config): Buffer | undefined {
  if (config.alerts.secretKey) return config.alerts.secretKey;
  if (!config.adminToken) return undefined;
  return Buffer.from(hkdfSync('sha256', config.adminToken, 'wfapi-alerts', 'webhook secret box', 32));
}

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** iv | tag | ciphertext. */
export function seal(key: Buffer, secret: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** The secret, or an error when the box was sealed under another key. */
export function open(key: Buffer, box: Uint8Array): string {
  const bytes = Buffer.from(box);
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
    'utf8',
  );
}
