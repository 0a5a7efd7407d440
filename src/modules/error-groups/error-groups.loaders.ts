import DataLoader from 'dataloader';
import type { Queryable } from '../../db/database.js';
import { readEach } from '../shared/read-each.js';
import { activityBuckets } from '../shared/time-window.js';
import {
  type ErrorGroupAnswer,
  type GroupParts,
  type GroupScope,
  type RankedGroup,
  toErrorGroupAnswer,
} from './error-group.mapper.js';
import {
  type GroupSightings,
  type GroupSpread,
  groupActivity,
  groupSightings,
  rankGroups,
} from './error-groups.store.js';

/** One group in the scope it was ranked in. */
export interface ScopedGroup {
  readonly scope: GroupScope;
  readonly fingerprint: string;
}

const scopeKey = ({ window, filter }: GroupScope) =>
  `${window.from}:${window.to}:${filter.workflowUuid ?? ''}:${filter.capabilityId ?? ''}`;

/**
 * What the error groups of one request read beyond their rank, each once for all the groups that
 * select it: their sightings (one statement for every group of the request, whatever its scope),
 * their spread (one statement a scope, when not read with the rank) and their activity in their
 * scope's buckets (one statement a scope).
 */
export function createErrorGroupLoaders(db: Queryable, organizationId: string) {
  return {
    sightings: new DataLoader<string, GroupSightings | undefined>(async (fingerprints) => {
      const sightings = await groupSightings(db, organizationId, fingerprints);
      return fingerprints.map((fingerprint) => sightings.get(fingerprint));
    }),
    spread: new DataLoader<GroupScope, Map<string, GroupSpread>, string>(
      (scopes) =>
        readEach(
          scopes,
          async ({ window, filter }) => (await rankGroups(db, organizationId, window, filter, true)).spread!,
        ),
      { cacheKeyFn: scopeKey },
    ),
    activity: new DataLoader<ScopedGroup, Array<{ from: number; to: number; occurrences: number }>, string>(
      async (groups) => {
        const byScope = new Map<string, { scope: GroupScope; fingerprints: string[] }>();
        for (const { scope, fingerprint } of groups) {
          const key = scopeKey(scope);
          const entry = byScope.get(key) ?? byScope.set(key, { scope, fingerprints: [] }).get(key)!;
          entry.fingerprints.push(fingerprint);
        }
        // A scope's failure is its groups' alone.
        const read = await readEach([...byScope.values()], async ({ scope, fingerprints }) => {
          const buckets = activityBuckets(scope.window);
          return {
            buckets,
            counts: await groupActivity(db, organizationId, buckets, scope.filter, fingerprints),
          };
        });
        const readOf = new Map([...byScope.keys()].map((key, i) => [key, read[i]!]));
        return groups.map(({ scope, fingerprint }) => {
          const scoped = readOf.get(scopeKey(scope))!;
          if (scoped instanceof Error) return scoped;
          const { buckets, counts } = scoped;
          const occurrences = counts.get(fingerprint) ?? [];
          return buckets.map((bucket, i) => ({
            from: bucket.from,
            to: bucket.to,
            occurrences: occurrences[i] ?? 0,
          }));
        });
      },
      { cacheKeyFn: (group) => `${scopeKey(group.scope)}:${group.fingerprint}` },
    ),
  };
}

export type ErrorGroupLoaders = ReturnType<typeof createErrorGroupLoaders>;

/** ErrorGroup's fields answered from a group's sightings, and from its spread. */
const FROM_SIGHTINGS = ['pattern', 'sampleMessage', 'firstSeenAt', 'lastSeenAt'];
const FROM_SPREAD = ['workflowCount', 'capabilityIDs'];

/** Whether `selected` (ErrorGroup's field names) needs any of `fields`. */
const needs = (selected: ReadonlySet<string>, fields: readonly string[]) =>
  fields.some((field) => selected.has(field));

/** Whether a request that selects `selected` of its groups needs their spread (read with the rank, if so). */
export const needsSpread = (selected: ReadonlySet<string>) => needs(selected, FROM_SPREAD);

/**
 * Ranked groups answered whole: each part of them that `selected` (ErrorGroup's field names a
 * request selects) needs is read through the request's loaders, once for every group of the
 * request that needs it, and nothing else is. A part that fails fails the list.
 */
export async function answerGroups(
  loaders: ErrorGroupLoaders,
  groups: readonly RankedGroup[],
  selected: ReadonlySet<string>,
): Promise<ErrorGroupAnswer[]> {
  const [sightings, spreads, activity] = await Promise.all([
    needs(selected, FROM_SIGHTINGS)
      ? Promise.all(groups.map((group) => loaders.sightings.load(group.fingerprint)))
      : null,
    needsSpread(selected)
      ? Promise.all(groups.map((group) => group.spread ?? loaders.spread.load(group.scope)))
      : null,
    selected.has('activity') ? Promise.all(groups.map((group) => loaders.activity.load(group))) : null,
  ]);
  return groups.map((group, i) => {
    const parts: { -readonly [P in keyof GroupParts]: GroupParts[P] } = {};
    if (sightings !== null) parts.sightings = sightings[i];
    if (spreads !== null) parts.spread = spreads[i]!.get(group.fingerprint);
    if (activity !== null) parts.activity = activity[i];
    return toErrorGroupAnswer(group, parts);
  });
}
