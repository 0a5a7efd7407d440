import { genericPlan, type Queryable } from '../../db/database.js';
import { rollupVersions, workflows } from '../../db/tables.js';
import { ANY_LEVEL, EXECUTION_ERRORS, errorGroupCounts } from '../../rollups/error-groups.rollup.js';
import { errorGroupOf } from '../../rollups/fingerprint.js';
import { DAY_GRAIN } from '../../rollups/grains.js';
import { isVisibleWorkflow } from '../../rollups/rollup.js';
import { type RollupWindow, readWindows } from '../../rollups/rollup-reader.store.js';
import { cachedReadsOf, KeptKind, keptPerWindow } from '../../rollups/window-cache.js';
import { type InclusiveWindow, rollupWindowOf } from '../shared/time-window.js';

export interface GroupFilter {
  /** null: every visible workflow. */
  readonly workflowUuid: string | null;
  /** null: any level (each execution once). */
  readonly capabilityId: string | null;
}

export interface GroupCount {
  readonly fingerprint: string;
  readonly occurrences: number;
  readonly executionCount: number;
}

const level = (filter: GroupFilter) => [filter.capabilityId ?? ANY_LEVEL];

/** Where a group was seen in the window: its workflows, and the capabilities whose events carried it. */
export interface GroupSpread {
  readonly workflows: Set<string>;
  readonly capabilities: Set<string>;
}

export interface RankedGroups {
  /** Every group with executions in the window, by occurrences (most first) then fingerprint. */
  readonly ranked: GroupCount[];
  /** Each ranked group's spread, when asked for. */
  readonly spread: Map<string, GroupSpread> | null;
}

/** A window's rank and spread, kept while its days are unchanged (keptPerWindow). */
const RANKED = new KeptKind<RankedGroups>('error group rank');

/** What a rank takes, estimated: an object a group, and a set entry a workflow or capability it was seen in. */
function rankedBytes({ ranked, spread }: RankedGroups): number {
  let bytes = 100 * ranked.length;
  for (const { workflows, capabilities } of spread?.values() ?? [])
    bytes += 200 + 50 * (workflows.size + capabilities.size);
  return bytes;
}

/**
 * The groups with executions in the window, ranked, and (`withSpread`) where each was seen. Both
 * come from one reading of the window's rows: an organization-wide window scans its buckets' rows
 * whichever groups it keeps, so reading them per workflow and level as well costs one scan, not
 * two. Without the spread the rows are summed per group in SQL, at the filter's level only. With
 * the server's cache, the rank of a window whose every piece is kept (a window between instants a
 * request named, asked again) is kept whole while its days are unchanged: a repeated request sums
 * no rows. The caller must not change what it is given.
 */
export async function rankGroups(
  db: Queryable,
  organizationId: string,
  window: InclusiveWindow,
  filter: GroupFilter,
  withSpread: boolean,
): Promise<RankedGroups> {
  const windows = [rollupWindowOf(window, filter.workflowUuid)];
  const kept = await keptPerWindow(db, RANKED, organizationId, windows, {
    rollups: [errorGroupCounts],
    id: `${filter.workflowUuid}|${filter.capabilityId}|${withSpread}`,
    bytes: rankedBytes,
    derive: async () => new Map([[0, await readRank(db, organizationId, windows, filter, withSpread)]]),
  });
  return kept.get(0)!;
}

async function readRank(
  db: Queryable,
  organizationId: string,
  windows: readonly RollupWindow[],
  filter: GroupFilter,
  withSpread: boolean,
): Promise<RankedGroups> {
  const rankLevel = filter.capabilityId ?? ANY_LEVEL;
  const rows = withSpread
    ? await readWindows(db, errorGroupCounts, organizationId, windows, {
        // Every level for the spread (one capability's when filtered); the rank reads its own.
        where: { capability_id: filter.capabilityId === null ? null : [filter.capabilityId] },
        groupBy: ['fingerprint', 'workflow_uuid', 'capability_id'],
      })
    : await readWindows(db, errorGroupCounts, organizationId, windows, {
        where: { capability_id: level(filter) },
        groupBy: ['fingerprint'],
      });
  const counts = new Map<string, { occurrences: number; executionCount: number }>();
  const spread = withSpread ? new Map<string, GroupSpread>() : null;
  for (const row of rows) {
    if (row.values.execution_count <= 0) continue;
    const { fingerprint } = row.dimensions;
    if (!withSpread || row.dimensions.capability_id === rankLevel) {
      const count = counts.get(fingerprint) ?? { occurrences: 0, executionCount: 0 };
      count.occurrences += row.values.occurrences;
      count.executionCount += row.values.execution_count;
      counts.set(fingerprint, count);
    }
    if (spread !== null) {
      let entry = spread.get(fingerprint);
      if (entry === undefined) {
        entry = { workflows: new Set(), capabilities: new Set() };
        spread.set(fingerprint, entry);
      }
      entry.workflows.add(row.dimensions.workflow_uuid);
      const capability = row.dimensions.capability_id;
      if (capability !== EXECUTION_ERRORS && capability !== ANY_LEVEL) entry.capabilities.add(capability);
    }
  }
  const ranked = [...counts].map(([fingerprint, count]) => ({ fingerprint, ...count }));
  ranked.sort((a, b) => b.occurrences - a.occurrences || (a.fingerprint < b.fingerprint ? -1 : 1));
  return { ranked, spread };
}

/** Occurrences of each group in each of `buckets` (whole buckets, as workflowActivity counts). */
export async function groupActivity(
  db: Queryable,
  organizationId: string,
  buckets: readonly { from: number; to: number }[],
  filter: GroupFilter,
  fingerprints: readonly string[],
): Promise<Map<string, number[]>> {
  const windows: RollupWindow[] = buckets.map((bucket, key) => ({
    key,
    from: bucket.from,
    to: bucket.to,
    workflowUuid: filter.workflowUuid,
  }));
  const rows = await readWindows(db, errorGroupCounts, organizationId, windows, {
    where: { fingerprint: fingerprints, capability_id: level(filter) },
    groupBy: ['fingerprint'],
  });
  const activity = new Map(fingerprints.map((f) => [f, buckets.map(() => 0)]));
  for (const row of rows) activity.get(row.dimensions.fingerprint)![row.key] = row.values.occurrences;
  return activity;
}

/** Bounds of a group's sightings: its earliest and latest execution, and one message of the latest. */
export interface GroupSightings {
  readonly firstSeenAt: Date;
  readonly lastSeenAt: Date;
  readonly sampleMessage: string;
}

/** The rollup's finest rung: the buckets a day's row is narrowed to. */
const FINEST = errorGroupCounts.grains[0]!;

/**
 * The earliest (`first`) or latest (`last`) stored execution of the group `f.fingerprint` among
 * the organization's visible workflows, as lateral joins named `<name>_day`, `<name>_bucket` and
 * `<name>_execution`: the first day rollup row with executions, then the first row of the finest
 * grain that day, then the group's rows of that bucket (dated by their execution's start, migration
 * 0008); a few index probes per group, whatever its size or the bucket's. When retention dropped
 * that bucket's executions, `<name>_execution` is null and the bucket's start stands for them.
 */
function boundJoins(name: 'first' | 'last'): string {
  const direction = name === 'first' ? 'asc' : 'desc';
  return `
  cross join lateral (
    select r.bucket_start from ${errorGroupCounts.table} r
    where r.organization_id = $1 and r.fingerprint = f.fingerprint and r.capability_id = '${ANY_LEVEL}'
      and r.grain = ${DAY_GRAIN.seconds} and r.execution_count > 0 and ${isVisibleWorkflow('r.workflow_uuid', 'hashed')}
    order by r.bucket_start ${direction} limit 1
  ) ${name}_day
  cross join lateral (
    select r.bucket_start from ${errorGroupCounts.table} r
    where r.organization_id = $1 and r.fingerprint = f.fingerprint and r.capability_id = '${ANY_LEVEL}'
      and r.grain = ${FINEST.seconds} and r.execution_count > 0
      and r.bucket_start >= ${name}_day.bucket_start
      and r.bucket_start < ${name}_day.bucket_start + make_interval(secs => ${DAY_GRAIN.seconds})
      and ${isVisibleWorkflow('r.workflow_uuid', 'hashed')}
    order by r.bucket_start ${direction} limit 1
  ) ${name}_bucket
  left join lateral (
    select x.uuid, x.started_at from execution_error_groups g
    join executions x on x.organization_id = $1 and x.started_at = g.started_at and x.uuid = g.execution_uuid
    where g.organization_id = $1 and g.fingerprint = f.fingerprint and g.started_at >= ${name}_bucket.bucket_start
      and g.started_at < ${name}_bucket.bucket_start + make_interval(secs => ${FINEST.seconds})
      and ${isVisibleWorkflow('x.workflow_uuid', 'hashed')}
    order by g.started_at ${direction}, g.execution_uuid ${direction} limit 1
  ) ${name}_execution on true`;
}

/**
 * What the sightings of an organization's groups are read from, as one text that differs whenever
 * they may: its rollup version counters (each ingestion that stores an execution or a call raises
 * its day's, whatever else it changed: migration 0015), its workflows (which decide what is
 * visible), and what partition upkeep left of the raw executions and calls: their month
 * partitions (dropped by retention, made for rows that waited in DEFAULT) and the organization's
 * rows waiting in DEFAULT (which retention deletes when they fall before the kept months). A
 * sighting kept under this text is one read now.
 */
const SIGHTINGS_STATE = `concat_ws('/',
  (select coalesce(sum(version), 0) || ':' || count(*) from ${rollupVersions.name} where organization_id = $1),
  (select count(*) from ${workflows.name} where organization_id = $1),
  (select count(*) from executions_default where organization_id = $1),
  (select count(*) from execution_events_default where organization_id = $1),
  (select string_agg(inhrelid::text, ',' order by inhrelid) from pg_inherits
   where inhparent in ('executions'::regclass, 'execution_events'::regclass)))`;

const STATE_NOW = genericPlan(`select ${SIGHTINGS_STATE} as state`);

/**
 * Per group (`$2`): its first and last sighting, and the errors the latest execution carries (its
 * own, then its calls' in a fixed order, whatever the arrival) or, when retention dropped that
 * execution, the message stored with the group. One statement: every part is a probe per group,
 * whatever the values, so it is planned once per connection like the group reads around it.
 */
const SIGHTINGS = genericPlan(`
  select f.fingerprint,
         coalesce(first_execution.started_at, first_bucket.bucket_start) as first_seen_at,
         coalesce(last_execution.started_at, last_bucket.bucket_start) as last_seen_at,
         carried.errors, carried.call_errors,
         stored.sample_message as stored_sample,
         ${SIGHTINGS_STATE} as state
  from unnest($2::text[]) as f(fingerprint)
  ${boundJoins('first')}
  ${boundJoins('last')}
  left join lateral (
    select case when jsonb_typeof(x.errors) = 'array' then x.errors else '[]'::jsonb end as errors,
           coalesce((select jsonb_agg(v.errors order by v.started_at, v.capability_id, v.errors::text)
                     from execution_events v
                     where v.organization_id = $1 and v.workflow_execution_uuid = x.uuid
                       and jsonb_typeof(v.errors) = 'array'), '[]'::jsonb) as call_errors
    from executions x
    where x.organization_id = $1 and x.started_at = last_execution.started_at and x.uuid = last_execution.uuid
  ) carried on true
  -- Joined only when retention dropped the latest execution.
  left join error_groups stored on stored.organization_id = $1 and stored.fingerprint = f.fingerprint
    and last_execution.uuid is null`);

type ErrorList = Array<{ error: string; count: number }>;

/** A group's sightings kept under the state they were read in (SIGHTINGS_STATE). */
const SIGHTINGS_KEPT = new KeptKind<GroupSightings>('error group sightings');
/** The state an organization's sightings were last read in (its key the organization's alone). */
const STATE_KEPT = new KeptKind<string>('error group sightings state');
/** What a kept group's sightings take besides its sample message, estimated. */
const SIGHTINGS_BYTES = 200;

/**
 * First and last sighting of groups over all time, from what is stored now: the start of the
 * earliest and of the latest execution (of a visible workflow) carrying the group at any level,
 * and a message of the group from the latest one (its own errors first, then its calls'). Like
 * every other figure they follow corrections, and never depend on the order data arrived in.
 *
 * With the server's cache (window-cache.ts), sightings are kept under the state they were read
 * in: once an organization's have been read, a request first reads the state (one row), and reads
 * again only the groups not kept under it, so an unchanged organization's are not probed again.
 */
export async function groupSightings(
  db: Queryable,
  organizationId: string,
  fingerprints: readonly string[],
): Promise<Map<string, GroupSightings>> {
  const cache = cachedReadsOf(db)?.cache;
  if (cache === undefined) return (await readSightings(db, organizationId, fingerprints)).sightings;
  const sightings = new Map<string, GroupSightings>();
  let missing = fingerprints;
  if (cache.get(STATE_KEPT, organizationId, '') !== undefined) {
    const [{ state }] = (await db.query<{ state: string }>(STATE_NOW, [organizationId])) as [
      { state: string },
    ];
    missing = fingerprints.filter((fingerprint) => {
      const kept = cache.get(SIGHTINGS_KEPT, `${organizationId}|${fingerprint}`, state);
      if (kept !== undefined) sightings.set(fingerprint, kept);
      return kept === undefined;
    });
  }
  if (missing.length === 0) return sightings;
  const read = await readSightings(db, organizationId, missing);
  if (read.state !== undefined) {
    for (const [fingerprint, sighting] of read.sightings) {
      sightings.set(fingerprint, sighting);
      const bytes = SIGHTINGS_BYTES + 2 * sighting.sampleMessage.length;
      cache.set(SIGHTINGS_KEPT, `${organizationId}|${fingerprint}`, read.state, sighting, bytes);
    }
    cache.set(STATE_KEPT, organizationId, '', read.state, read.state.length * 2);
  }
  return sightings;
}

/** The sightings of `fingerprints` read now, with the state they were read in (none without a row). */
async function readSightings(
  db: Queryable,
  organizationId: string,
  fingerprints: readonly string[],
): Promise<{ sightings: Map<string, GroupSightings>; state: string | undefined }> {
  const rows = await db.query<{
    fingerprint: string;
    first_seen_at: Date;
    last_seen_at: Date;
    errors: ErrorList | null;
    call_errors: ErrorList[] | null;
    stored_sample: string | null;
    state: string;
  }>(SIGHTINGS, [organizationId, fingerprints]);
  const sightings = new Map<string, GroupSightings>();
  for (const row of rows) {
    const carried = [...(row.errors ?? []), ...(row.call_errors ?? []).flat()];
    const sample =
      row.stored_sample ??
      carried.find(({ error }) => errorGroupOf(error).fingerprint === row.fingerprint)?.error;
    sightings.set(row.fingerprint, {
      firstSeenAt: row.first_seen_at,
      lastSeenAt: row.last_seen_at,
      sampleMessage: sample ?? '',
    });
  }
  return { sightings, state: rows[0]?.state };
}
