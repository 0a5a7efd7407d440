import type { InclusiveWindow } from '../shared/time-window.js';
import type { GroupCount, GroupFilter, GroupSpread } from './error-groups.store.js';

/** The window and filter a list of error groups was ranked in: their spread and activity are read in it. */
export interface GroupScope {
  readonly window: InclusiveWindow;
  readonly filter: GroupFilter;
}

/**
 * An error group of an answer: its counts and the scope it was ranked in. Its other fields are read
 * by the request's loaders (error-groups.loaders.ts), once for every group that selects them; the
 * spread is carried here when it was read with the rank.
 */
export interface ErrorGroupParent extends GroupCount {
  readonly scope: GroupScope;
  readonly spread: Map<string, GroupSpread> | null;
}

/** The parents of ranked groups: every answer that lists error groups (errorGroups, deploymentImpact) makes them so. */
export function toErrorGroups(
  groups: readonly GroupCount[],
  scope: GroupScope,
  spread: Map<string, GroupSpread> | null,
): ErrorGroupParent[] {
  return groups.map((group) => ({ ...group, scope, spread }));
}
