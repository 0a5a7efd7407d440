import { errorGroupOf } from '../../rollups/fingerprint.js';
import type { ApiScalars } from '../../schema/scalars.js';
import type { ErrorGroup } from '../../schema/schema-types.generated.js';
import type { InclusiveWindow } from '../shared/time-window.js';
import type { GroupCount, GroupFilter, GroupSightings, GroupSpread } from './error-groups.store.js';

/** The window and filter a list of error groups was ranked in: their spread and activity are read in it. */
export interface GroupScope {
  readonly window: InclusiveWindow;
  readonly filter: GroupFilter;
}

/** A ranked group, before the rest of what a request selected of it is read: its counts and scope. */
export interface RankedGroup extends GroupCount {
  readonly scope: GroupScope;
  /** The spread of its scope's groups, when it was read with the rank. */
  readonly spread: Map<string, GroupSpread> | null;
}

/**
 * An error group as answered: its counts, and whichever of its other fields the request selected
 * (read ahead for every group of the request by answerGroups, error-groups.loaders.ts). Its fields
 * have no resolvers of their own, so an answer listing groups can be a kept answer.
 */
export type ErrorGroupAnswer = Pick<
  ErrorGroup<ApiScalars>,
  'fingerprint' | 'occurrences' | 'executionCount'
> &
  Partial<ErrorGroup<ApiScalars>>;

/** The ranked groups of every answer that lists error groups (errorGroups, deploymentImpact). */
export function toRankedGroups(
  groups: readonly GroupCount[],
  scope: GroupScope,
  spread: Map<string, GroupSpread> | null,
): RankedGroup[] {
  return groups.map((group) => ({ ...group, scope, spread }));
}

/**
 * GraphQL's Int ends at 2^31-1. One error's count is bounded by it at ingestion, but a sum of
 * several is not: an occurrence count beyond it is answered as that maximum, never as an error
 * that would void the whole answer.
 */
const MAX_INT = 2 ** 31 - 1;
const saturated = (value: number): number => Math.min(value, MAX_INT);

/** What was read of a group beyond its rank, each part only when selected. */
export interface GroupParts {
  readonly sightings?: GroupSightings | undefined;
  readonly spread?: GroupSpread | undefined;
  readonly activity?: ReadonlyArray<{ from: number; to: number; occurrences: number }>;
}

/** A ranked group answered with the parts read of it. */
export function toErrorGroupAnswer(group: GroupCount, parts: GroupParts): ErrorGroupAnswer {
  const answer: ErrorGroupAnswer = {
    fingerprint: group.fingerprint,
    occurrences: saturated(group.occurrences),
    executionCount: group.executionCount,
  };
  if ('sightings' in parts) {
    const sample = parts.sightings?.sampleMessage ?? '';
    answer.sampleMessage = sample;
    // The pattern is its sample's: every message of a group has the group's pattern.
    answer.pattern = errorGroupOf(sample).pattern;
    // Every ranked group has its error_groups row: both are written in the same transaction.
    answer.firstSeenAt = parts.sightings?.firstSeenAt as Date;
    answer.lastSeenAt = parts.sightings?.lastSeenAt as Date;
  }
  if ('spread' in parts) {
    answer.workflowCount = parts.spread?.workflows.size ?? 0;
    answer.capabilityIDs = [...(parts.spread?.capabilities ?? [])].sort();
  }
  if (parts.activity !== undefined)
    answer.activity = parts.activity.map((bucket) => ({
      from: new Date(bucket.from),
      to: new Date(bucket.to),
      occurrences: saturated(bucket.occurrences),
    }));
  return answer;
}
