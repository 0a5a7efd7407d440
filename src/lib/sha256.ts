import * as crypto from 'node:crypto';

/** `crypto.hash`, absent before Node 20.12 (a namespace read, so that older Nodes still load this file). */
const oneShotHash = (crypto as Partial<typeof crypto>).hash;

/**
 * The SHA-256 of a text's UTF-8 bytes. One-shot where Node has it (20.12): ingestion hashes every
 * log and event line and every request its key's secret, and a Hash object costs about twice as much.
 */
export function sha256(text: string): Buffer {
  return oneShotHash
    ? oneShotHash('sha256', text, 'buffer')
    : crypto.createHash('sha256').update(text).digest();
}
