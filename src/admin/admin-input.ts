/** Checks of operator input shared by the admin services. */
import { badInput } from '../errors.js';
import { normalizeUuid } from '../modules/shared/uuid.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Trimmed, non-empty, bounded, and free of control characters (PostgreSQL text cannot hold NUL). */
export function label(name: string, value: string, max = 200): string {
  const trimmed = value.trim();
  if (trimmed === '') throw badInput(`${name} must not be empty`);
  if (trimmed.length > max) throw badInput(`${name} must be at most ${max} characters`);
  if (CONTROL_CHARACTERS.test(trimmed)) throw badInput(`${name} must not contain control characters`);
  return trimmed;
}

export function uuidOf(name: string, value: string): string {
  return (
    normalizeUuid(value) ??
    (() => {
      throw badInput(`${name} must be a uuid`);
    })()
  );
}
