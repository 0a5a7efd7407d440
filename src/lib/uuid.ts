const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Canonical (lower-case) form of a uuid, or undefined when the text is not one. Reads treat a
 * malformed uuid as one that does not exist, exactly like an unknown one.
 */
export function normalizeUuid(text: string): string | undefined {
  return UUID.test(text) ? text.toLowerCase() : undefined;
}

/** The uuid text of 32 hex digits: dashed 8-4-4-4-12. */
export function dashedUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
