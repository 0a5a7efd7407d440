import type { LogMatchRow } from './log-search.store.js';

/** A `searchExecutionLogs` answer: the page and the counts are read only when selected. */
export interface SearchParent {
  readonly page: () => Promise<LogMatchRow[]>;
  /** Matches counted up to one past the cap, once for both count fields. */
  readonly count: () => Promise<number>;
}
