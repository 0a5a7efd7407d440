import type { GroupCount, GroupSpread, groupSightings } from './error-groups.store.js';

/** What the groups of one page share: their details, spread and activity, each read once for the page. */
export interface PageDetails {
  readonly details: () => ReturnType<typeof groupSightings>;
  readonly spread: () => Promise<Map<string, GroupSpread>>;
  readonly activity: () => Promise<{
    buckets: Array<{ from: number; to: number }>;
    counts: Map<string, number[]>;
  }>;
}

/** An error group of a page: its counts, and what it shares with the rest of the page. */
export interface ErrorGroupParent extends GroupCount {
  readonly page: PageDetails;
}
