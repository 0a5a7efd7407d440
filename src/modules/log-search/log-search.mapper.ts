import type { Paging } from '../shared/paging.js';
import type { LogSearch } from './log-search.store.js';

/** A `searchExecutionLogs` answer: the page and the counts are read only when selected. */
export interface SearchParent {
  /** Undefined when the workflow filter cannot match anything. */
  readonly search: LogSearch | undefined;
  readonly paging: Paging;
  /** Matches counted up to one past the cap, once for both count fields. */
  readonly count: () => Promise<number>;
}
