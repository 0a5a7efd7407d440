import DataLoader from 'dataloader';
import type { Queryable } from '../../db/database.js';
import { cachedReadsOf, KeptKind } from '../../rollups/window-cache.js';
import { readEach } from '../shared/read-each.js';
import type { SearchParent } from './log-search.mapper.js';
import {
  countLogMatches,
  type LogMatchKey,
  type LogMatchRow,
  type LogSearch,
  readMatches,
  searchLogKeys,
  searchLogs,
  searchLogsCounted,
} from './log-search.store.js';

/** Matches counted exactly up to this many; pages end there too. */
export const MAX_COUNTED_MATCHES = 10_000;
/** Matches are counted up to one past the cap, so that a count at the cap is known to be exact. */
const CAP = MAX_COUNTED_MATCHES + 1;

/** A search a line can match. */
export type Asked = SearchParent & { readonly search: LogSearch };

/** A search's matches as kept: every match's key up to CAP, in the order of pages. */
type KeptMatches = readonly LogMatchKey[];
const KEPT_MATCHES = new KeptKind<KeptMatches>('log search matches');
/** A kept match's estimated heap size: its object, two uuid strings, its node, its time and its hash. */
const MATCH_BYTES = 400;

/**
 * Where a search's matches may be kept (the rollup cache, window-cache.ts): a window both of
 * whose ends the request named, read through a handle with a cache. Its lines change only through
 * ingestion, which raises the versions of their days (src/ingest/log-days.store.ts), so the
 * matches are checked as kept rollup answers are: against the versions of the window's days, the
 * organization's workflows and the retention mark. Most windows are asked once, so the keys are
 * read to be kept only for a search asked before whose matches were few enough to keep.
 */
async function keeping(db: Queryable, organizationId: string, asked: Asked) {
  const reads = cachedReadsOf(db);
  const { search } = asked;
  if (reads === undefined || !asked.windowNamed) return undefined;
  const [from, to] = [search.from.getTime(), search.to.getTime()];
  const versions = await reads.versions(db, organizationId, from);
  return {
    cache: reads.cache,
    id: `${organizationId}|${search.pattern}|${search.workflowUuid}|${search.nodeId}|${from}|${to}`,
    // Both ends inclusive: the days of [from, to + 1 ms).
    version: versions.of(from, to + 1),
  };
}

/** Each search of the request (an answer's parent is its key) read once: its page, its count, or both together. */
export function createLogSearchLoaders(db: Queryable, organizationId: string) {
  const each = <V>(read: (asked: Asked) => Promise<V>) =>
    new DataLoader<Asked, V>((keys) => readEach(keys, read));
  /**
   * The search's kept matches, read and kept now when it was asked before; undefined when they
   * are not kept (`seen` then notes a count small enough to keep next time).
   */
  const kept = async (asked: Asked) => {
    const keep = await keeping(db, organizationId, asked);
    if (keep === undefined) return { matches: undefined, seen: () => {} };
    const { cache, id, version } = keep;
    let matches = cache.get(KEPT_MATCHES, id, version);
    if (matches === undefined && cache.seenBefore(KEPT_MATCHES, id)) {
      // At the cap, the first CAP matches are all that a count or a page ever shows.
      matches = await searchLogKeys(db, organizationId, asked.search, CAP);
      cache.set(KEPT_MATCHES, id, version, matches, matches.length * MATCH_BYTES);
    }
    const seen = (count: number) => {
      if (cache.holds(count * MATCH_BYTES)) cache.remember(KEPT_MATCHES, id);
    };
    return { matches, seen };
  };
  const pageOf = (asked: Asked, matches: KeptMatches) =>
    readMatches(
      db,
      organizationId,
      matches.slice(asked.paging.offset, asked.paging.offset + asked.paging.limit),
    );
  return {
    page: each(async (asked): Promise<LogMatchRow[]> => {
      const { matches } = await kept(asked);
      return matches === undefined
        ? searchLogs(db, organizationId, asked.search, asked.paging)
        : pageOf(asked, matches);
    }),
    count: each(async (asked) => {
      const { matches, seen } = await kept(asked);
      if (matches !== undefined) return matches.length;
      const count = await countLogMatches(db, organizationId, asked.search, CAP);
      seen(count);
      return count;
    }),
    /** The count and, below the cap, the page (undefined at the cap: read the page alone). */
    together: each(async (asked) => {
      const { matches, seen } = await kept(asked);
      if (matches !== undefined) return { count: matches.length, page: await pageOf(asked, matches) };
      const counted = await searchLogsCounted(db, organizationId, asked.search, asked.paging, CAP);
      seen(counted.count);
      return counted;
    }),
  };
}
