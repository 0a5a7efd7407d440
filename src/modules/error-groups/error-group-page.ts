import type { Queryable } from '../../db/database.js';
import { once } from '../../lib/once.js';
import { activityBuckets, type InclusiveWindow } from '../shared/time-window.js';
import type { PageDetails } from './error-group.mapper.js';
import {
  type GroupFilter,
  type GroupSpread,
  groupActivity,
  groupSightings,
  rankGroups,
} from './error-groups.store.js';

/**
 * What the groups of one answer share, each read once for all of them and only when a field asks:
 * their sightings, their spread over `window` (given when already read with the rank) and their
 * activity in `window`'s buckets. Used by every answer that lists error groups (errorGroups,
 * deploymentImpact's new and resolved groups).
 */
export function groupPage(
  db: Queryable,
  organizationId: string,
  window: InclusiveWindow,
  filter: GroupFilter,
  fingerprints: string[],
  spread: Map<string, GroupSpread> | null,
): PageDetails {
  return {
    details: once(() => groupSightings(db, organizationId, fingerprints)),
    // Read with the rank when the request selects it; otherwise read again with it.
    spread:
      spread === null
        ? once(async () => (await rankGroups(db, organizationId, window, filter, true)).spread!)
        : () => Promise.resolve(spread),
    activity: once(async () => {
      const buckets = activityBuckets(window);
      return { buckets, counts: await groupActivity(db, organizationId, buckets, filter, fingerprints) };
    }),
  };
}
