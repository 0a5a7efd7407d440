import { sha256 } from '../../../../lib/sha256.js';

/**
 * Trace and span ids of an export, derived from the data alone so that exporting the same
 * execution twice sends the same ids (a backend then sees one trace, not two):
 * - the trace id is the execution uuid's 16 bytes (32 hex digits; a uuid that is not one is
 *   hashed with SHA-256 and the first 16 bytes taken);
 * - a span id is the first 8 bytes of SHA-256 over its identity: `run` and the uuid for the
 *   pipeline-run span; `event`, the uuid, the capabilityID, startedAt and the event's rank among
 *   the execution's events with the same capabilityID and startedAt for a task span.
 * An all-zero id is invalid in OTLP; the hash is then taken again over its own output.
 */

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** The SHA-256 of a text, in hex. */
function sha256Hex(text: string): string {
  return sha256(text).toString('hex');
}

function nonZero(hex: string, length: number): string {
  let id = hex.slice(0, length);
  while (/^0+$/.test(id)) id = sha256Hex(id).slice(0, length);
  return id;
}

export function traceIdOf(executionUuid: string): string {
  const hex = UUID.test(executionUuid)
    ? executionUuid.replace(/-/g, '').toLowerCase()
    : sha256Hex(executionUuid);
  return nonZero(hex, 32);
}

export function runSpanIdOf(executionUuid: string): string {
  return nonZero(sha256Hex(['run', executionUuid].join('\0')), 16);
}

export function taskSpanIdOf(
  executionUuid: string,
  event: { readonly capabilityID: string; readonly startedAt: string },
  rank: number,
): string {
  return nonZero(
    sha256Hex(['event', executionUuid, event.capabilityID, event.startedAt, String(rank)].join('\0')),
    16,
  );
}
