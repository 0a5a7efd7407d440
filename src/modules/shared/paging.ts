import { badInput } from '../../errors.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export interface PageInput {
  number?: number | null;
  size?: number | null;
}

export interface Paging {
  readonly limit: number;
  readonly offset: number;
}

/** Pages count from 0; size is 1..100. An explicit null means the default. */
export function toPaging(page: PageInput | null | undefined): Paging {
  const number = page?.number ?? 0;
  const size = page?.size ?? DEFAULT_PAGE_SIZE;
  if (size < 1) throw badInput('page.size must be at least 1');
  if (size > MAX_PAGE_SIZE) throw badInput(`page.size must be at most ${MAX_PAGE_SIZE}`);
  if (number < 0) throw badInput('page.number must be at least 0');
  const offset = number * size;
  if (!Number.isSafeInteger(offset) || offset > 2_000_000_000) throw badInput('page.number is too large');
  return { limit: size, offset };
}

/** Rejects list filters longer than their bound, naming the field. */
export function checkListBound(
  name: string,
  values: readonly unknown[] | null | undefined,
  max: number,
): void {
  if (values && values.length > max) throw badInput(`${name} must have at most ${max} values`);
}

/** Rejects `from` later than `to`. */
export function checkRange(from: Date | null | undefined, to: Date | null | undefined): void {
  if (from && to && from.getTime() > to.getTime()) throw badInput('from must not be later than to');
}

/** Escapes a user's search text for a `like` pattern: a substring match, case-insensitive with ilike. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Characters a text filter (`search`, log search's `query`) may have at most: a substring match
 * costs the database in proportion to its length for every row it reads, so an unbounded one
 * let a single request hold the database for seconds (issue 44).
 */
export const MAX_SEARCH_LENGTH = 200;

/** Rejects a text filter longer than MAX_SEARCH_LENGTH characters (code points), naming the field. */
export function checkTextBound(name: string, text: string): void {
  if (text.length > MAX_SEARCH_LENGTH && [...text].length > MAX_SEARCH_LENGTH) {
    throw badInput(`${name} must be at most ${MAX_SEARCH_LENGTH} characters`);
  }
}

/** Search text that means "no filter": absent or empty; longer than its bound is refused. */
export function searchText(search: string | null | undefined): string | undefined {
  if (search === undefined || search === null || search === '') return undefined;
  checkTextBound('search', search);
  return search;
}
