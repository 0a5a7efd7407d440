import DataLoader from 'dataloader';
import type { Queryable } from '../../db/database.js';
import { readEach } from '../shared/read-each.js';
import type { SearchParent } from './log-search.mapper.js';
import { countLogMatches, type LogSearch, searchLogs, searchLogsCounted } from './log-search.store.js';

/** Matches counted exactly up to this many; pages end there too. */
export const MAX_COUNTED_MATCHES = 10_000;
/** Matches are counted up to one past the cap, so that a count at the cap is known to be exact. */
const CAP = MAX_COUNTED_MATCHES + 1;

/** A search a line can match. */
export type Asked = SearchParent & { readonly search: LogSearch };

/** Each search of the request (an answer's parent is its key) read once: its page, its count, or both together. */
export function createLogSearchLoaders(db: Queryable, organizationId: string) {
  const each = <V>(read: (asked: Asked) => Promise<V>) =>
    new DataLoader<Asked, V>((keys) => readEach(keys, read));
  return {
    page: each((asked) => searchLogs(db, organizationId, asked.search, asked.paging)),
    count: each((asked) => countLogMatches(db, organizationId, asked.search, CAP)),
    /** The count and, below the cap, the page (undefined at the cap: read the page alone). */
    together: each((asked) => searchLogsCounted(db, organizationId, asked.search, asked.paging, CAP)),
  };
}
