/**
 * Every rollup recomputed from the raw rows, independently of the ingestion code that maintains
 * them: equal to the stored rollups exactly when they are exact, whatever the arrival order.
 */
import type { Database } from '../../src/db/database.js';
import { binOf } from '../../src/rollups/duration-bins.js';
import { errorGroupOf } from '../../src/rollups/fingerprint.js';

/** The grains each rollup keeps: durations every rung of the ladder, the others three. */
const GRAINS = [300, 3600, 86400];
const DURATION_GRAINS = [60, 300, 900, 3600, 21600, 86400];
const EVERY = '00000000-0000-0000-0000-000000000000';
const DAY_MS = 86_400_000;
/**
 * The first one-minute and five-minute duration bucket kept at `now`: the start of the day nine
 * days back (eight days of reads and a day's margin: src/rollups/grains.ts); coarser rows are kept
 * for every bucket.
 */
const minuteRowsFrom = (now: number) => Math.floor(now / DAY_MS) * DAY_MS - 9 * DAY_MS;

interface ExecutionRow {
  organization_id: string;
  uuid: string;
  workflow_uuid: string;
  status: string;
  started_at: Date;
  finished_at: Date | null;
  executed_in_tee: boolean | null;
  credit_used: string | null;
  errors: Array<{ error: string; count: number }> | null;
}

interface EventRow {
  organization_id: string;
  workflow_execution_uuid: string;
  capability_id: string;
  status: string;
  started_at: Date;
  finished_at: Date | null;
  errors: Array<{ error: string; count: number }> | null;
}

type Values = Array<number | string | null>;

class Table {
  readonly rows = new Map<string, Values>();
  constructor(private readonly combine: (a: Values, b: Values) => Values) {}
  add(key: string, values: Values): void {
    const current = this.rows.get(key);
    this.rows.set(key, current ? this.combine(current, values) : values);
  }
}

const sum = (a: Values, b: Values) => a.map((v, i) => Number(v) + Number(b[i]));
const credit = (value: string | null) => Number(value ?? 0);
const bucketsOf = (time: Date, grains = GRAINS) =>
  grains.map((grain) => [grain, Math.floor(time.getTime() / (grain * 1000)) * grain * 1000] as const);
const durationOf = (from: Date, to: Date | null) =>
  to === null ? null : Math.max(0, to.getTime() - from.getTime());
const outcome = (event: EventRow) =>
  (event.errors?.length ?? 0) > 0 || !['COMPLETED', 'SUCCESS'].includes(event.status) ? 'FAILURE' : 'SUCCESS';

function timing(a: Values, b: Values): Values {
  const bins = new Map<number, number>(JSON.parse(String(a[5])));
  for (const [bin, count] of JSON.parse(String(b[5])) as Array<[number, number]>)
    bins.set(bin, (bins.get(bin) ?? 0) + count);
  const min = [a[3], b[3]].filter((v) => v !== null).map(Number);
  const max = [a[4], b[4]].filter((v) => v !== null).map(Number);
  return [
    Number(a[0]) + Number(b[0]),
    Number(a[1]) + Number(b[1]),
    Number(a[2]) + Number(b[2]),
    min.length ? Math.min(...min) : null,
    max.length ? Math.max(...max) : null,
    JSON.stringify([...bins].filter(([, n]) => n !== 0).sort(([x], [y]) => x - y)),
  ];
}

const sorted = (entries: Iterable<[string, Values]>) =>
  [...entries].map(([key, values]) => `${key} ${JSON.stringify(values)}`).sort();

/** The entries of each side that the other lacks: both empty when the rollups are exact. */
function difference(expected: string[], actual: string[]): { expected: string; actual: string } {
  const inActual = new Set(actual);
  const inExpected = new Set(expected);
  return {
    expected: expected.filter((entry) => !inActual.has(entry)).join('\n'),
    actual: actual.filter((entry) => !inExpected.has(entry)).join('\n'),
  };
}

/** Bins of a stored histogram: its lower bound and the counts from there. */
function storedBins(lo: number | null, text: string | null): string {
  const bins: Array<[number, number]> = [];
  if (lo !== null && text !== null) {
    text.split(',').forEach((count, i) => {
      if (Number(count) !== 0) bins.push([lo + i, Number(count)]);
    });
  }
  return JSON.stringify(bins);
}

/**
 * Which one-minute duration rows are expected: those ingestion writes now (from
 * minuteRowsFrom(now)), or, after an upgrade whose migration built them for every bucket, those
 * the upkeep then keeps (src/rollups/rollup-upkeep.store.ts): it judges an organization's rows
 * from the end of its newest day of data when that is earlier than now.
 */
export type MinuteRows = 'written' | 'kept by upkeep';

/** What the stored rollups lack (`expected`) and have too much of (`actual`): both '' when exact. */
export async function rollupDrift(
  db: Database,
  minuteRows: MinuteRows = 'written',
): Promise<{ expected: string; actual: string }> {
  const now = Date.now();
  const newestDays = new Map(
    minuteRows === 'written'
      ? []
      : (
          await db.query<{ organization_id: string; day: Date }>(
            'select organization_id, max(bucket_start) as day from duration_rollups where grain = 86400 group by organization_id',
          )
        ).map((row) => [row.organization_id, row.day.getTime()]),
  );
  const keptAt = (organizationId: string, grain: number, bucket: number) => {
    if (grain !== 60 && grain !== 300) return true;
    const newest = newestDays.get(organizationId);
    const reference = newest === undefined ? now : Math.min(now, newest + DAY_MS - 1);
    return bucket >= minuteRowsFrom(reference);
  };
  const executions = await db.query<ExecutionRow>(
    `select organization_id, uuid, workflow_uuid, status, started_at, finished_at, executed_in_tee,
            credit_used::text, errors from executions`,
  );
  const events = await db.query<EventRow>(
    'select organization_id, workflow_execution_uuid, capability_id, status, started_at, finished_at, errors from execution_events',
  );
  const visible = new Set(
    (
      await db.query<{ organization_id: string; uuid: string }>('select organization_id, uuid from workflows')
    ).map((w) => `${w.organization_id}/${w.uuid}`),
  );
  const byUuid = new Map(executions.map((e) => [e.uuid, e]));

  const counts = new Table(sum);
  const durations = new Table(timing);
  const groups = new Table(sum);
  const index = new Table(sum);
  const addTiming = (org: string, wf: string, time: Date, cap: string, status: string, ms: number | null) => {
    const targets = visible.has(`${org}/${wf}`) ? [wf, EVERY] : [wf];
    for (const target of targets) {
      for (const [grain, bucket] of bucketsOf(time, DURATION_GRAINS)) {
        if (!keptAt(org, grain, bucket)) continue;
        durations.add(`${org}/${grain}/${bucket}/${target}/${cap}/${status}`, [
          1,
          ms === null ? 0 : 1,
          ms ?? 0,
          ms,
          ms,
          JSON.stringify(ms === null ? [] : [[binOf(ms), 1]]),
        ]);
      }
    }
  };
  for (const e of executions) {
    const tee = e.executed_in_tee ? 1 : 0;
    for (const [grain, bucket] of [...bucketsOf(e.started_at), [0, 0] as const]) {
      counts.add(`${e.organization_id}/${grain}/${bucket}/${e.workflow_uuid}/${e.status}`, [
        1,
        tee,
        credit(e.credit_used),
      ]);
    }
    const ms = durationOf(e.started_at, e.finished_at);
    if (ms !== null) addTiming(e.organization_id, e.workflow_uuid, e.started_at, '', e.status, ms);
  }
  const errorRows = new Map<string, Map<string, number>>();
  const addErrors = (org: string, uuid: string, level: string, errors: EventRow['errors']) => {
    for (const { error, count } of errors ?? []) {
      const key = `${org}/${uuid}`;
      const rows = errorRows.get(key) ?? new Map<string, number>();
      const id = `${errorGroupOf(error).fingerprint}/${level}`;
      rows.set(id, (rows.get(id) ?? 0) + count);
      errorRows.set(key, rows);
    }
  };
  for (const e of executions) addErrors(e.organization_id, e.uuid, '', e.errors);
  for (const v of events) {
    addErrors(v.organization_id, v.workflow_execution_uuid, v.capability_id, v.errors);
    const execution = byUuid.get(v.workflow_execution_uuid);
    if (!execution) continue;
    addTiming(
      v.organization_id,
      execution.workflow_uuid,
      v.started_at,
      v.capability_id,
      outcome(v),
      durationOf(v.started_at, v.finished_at),
    );
  }
  for (const [key, rows] of errorRows) {
    const [org, uuid] = key.split('/') as [string, string];
    const execution = byUuid.get(uuid);
    // Each row is dated by its execution's start, undated while the execution has not arrived.
    const start = execution ? execution.started_at.getTime() : null;
    for (const [id, occurrences] of rows) index.add(`${org}/${uuid}/${id}/${start}`, [occurrences]);
    if (!execution) continue;
    const anyLevel = new Map<string, number>();
    for (const [id, occurrences] of rows) {
      const [fingerprint, level] = id.split('/') as [string, string];
      anyLevel.set(fingerprint, (anyLevel.get(fingerprint) ?? 0) + occurrences);
      for (const [grain, bucket] of bucketsOf(execution.started_at)) {
        groups.add(`${org}/${grain}/${bucket}/${execution.workflow_uuid}/${fingerprint}/${level}`, [
          occurrences,
          1,
        ]);
      }
    }
    for (const [fingerprint, occurrences] of anyLevel) {
      for (const [grain, bucket] of bucketsOf(execution.started_at)) {
        groups.add(`${org}/${grain}/${bucket}/${execution.workflow_uuid}/${fingerprint}/*`, [occurrences, 1]);
      }
    }
  }

  const storedCounts = await db.query<Record<string, string | number | Date>>(
    `select organization_id, grain, workflow_uuid, bucket_start, status, execution_count, tee_count, credit_used::text
     from execution_rollups where execution_count <> 0 or credit_used <> 0 or tee_count <> 0`,
  );
  const storedDurations = await db.query<Record<string, string | number | Date | null>>(
    `select organization_id, grain, bucket_start, workflow_uuid, capability_id, status, item_count, finished_count,
            duration_sum_ms, duration_min_ms, duration_max_ms,
            array_lower(duration_bins, 1) as bins_lo, array_to_string(duration_bins, ',', '0') as bins
     from duration_rollups where item_count <> 0`,
  );
  // An empty bin is stored as null (migration 0014): a zero would be a row's bytes wasted.
  const zeroBins = await db.query<Record<string, string | number | Date>>(
    `select organization_id, grain, bucket_start, workflow_uuid, capability_id, status
     from duration_rollups where 0 = any(duration_bins)`,
  );
  const storedGroups = await db.query<Record<string, string | number | Date>>(
    `select organization_id, grain, bucket_start, workflow_uuid, fingerprint, capability_id, occurrences, execution_count
     from error_group_rollups where execution_count <> 0 or occurrences <> 0`,
  );
  const storedIndex = await db.query<Record<string, string | number | Date | null>>(
    'select organization_id, execution_uuid, fingerprint, capability_id, occurrences, started_at from execution_error_groups',
  );
  const time = (value: unknown) => (value as Date).getTime();
  return difference(
    sorted([
      ...[...counts.rows].map(([k, v]): [string, Values] => [`counts/${k}`, v]),
      ...[...durations.rows].map(([k, v]): [string, Values] => [`durations/${k}`, v]),
      ...[...groups.rows].map(([k, v]): [string, Values] => [`groups/${k}`, v]),
      ...[...index.rows].map(([k, v]): [string, Values] => [`index/${k}`, v]),
    ]),
    sorted([
      ...storedCounts.map((r): [string, Values] => [
        `counts/${r.organization_id}/${r.grain}/${time(r.bucket_start)}/${r.workflow_uuid}/${r.status}`,
        [r.execution_count, r.tee_count, r.credit_used].map(Number),
      ]),
      ...storedDurations.map((r): [string, Values] => [
        `durations/${r.organization_id}/${r.grain}/${time(r.bucket_start)}/${r.workflow_uuid}/${r.capability_id}/${r.status}`,
        [
          Number(r.item_count),
          Number(r.finished_count),
          Number(r.duration_sum_ms),
          r.duration_min_ms === null ? null : Number(r.duration_min_ms),
          r.duration_max_ms === null ? null : Number(r.duration_max_ms),
          storedBins(r.bins_lo as number | null, r.bins as string | null),
        ],
      ]),
      ...zeroBins.map((r): [string, Values] => [
        `zero bins/${r.organization_id}/${r.grain}/${time(r.bucket_start)}/${r.workflow_uuid}/${r.capability_id}/${r.status}`,
        [],
      ]),
      ...storedGroups.map((r): [string, Values] => [
        `groups/${r.organization_id}/${r.grain}/${time(r.bucket_start)}/${r.workflow_uuid}/${r.fingerprint}/${r.capability_id}`,
        [Number(r.occurrences), Number(r.execution_count)],
      ]),
      ...storedIndex.map((r): [string, Values] => [
        `index/${r.organization_id}/${r.execution_uuid}/${r.fingerprint}/${r.capability_id}/${r.started_at === null ? null : time(r.started_at)}`,
        [Number(r.occurrences)],
      ]),
    ]),
  );
}
