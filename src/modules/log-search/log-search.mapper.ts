import type { Paging } from '../shared/paging.js';
import type { LogSearch } from './log-search.store.js';

/**
 * A `searchExecutionLogs` answer: the search asked (null when no line can match) and its page. The
 * page and the counts are read only when selected, by the request's loaders (log-search.loaders.ts);
 * `together` when both are selected, so that one reading of the matches gives both.
 */
export interface SearchParent {
  readonly search: LogSearch | null;
  readonly paging: Paging;
  readonly together: boolean;
  /** Both ends of the window were named by the request (not now): its matches may be kept. */
  readonly windowNamed: boolean;
}
