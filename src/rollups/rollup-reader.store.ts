import { genericPlan, type Queryable } from '../db/database.js';
import { fromUnits, toUnits } from '../lib/decimal.js';
import { BinCounts } from './bin-counts.js';
import {
  type AnyRollup,
  EVERY_WORKFLOW,
  extreme,
  isVisibleWorkflow,
  type MeasureKind,
  type Measures,
  type MeasureValues,
  type RawSql,
  type Rollup,
} from './rollup.js';
import { type CachedReads, cachedReadsOf, KeptKind, type KeptWindow, keepsPiece } from './window-cache.js';
import { coverWindow, RAW, SUBTRACTED, type TimeWindow, type WindowPiece } from './windows.js';

/**
 * A window to aggregate: one workflow's rows, or (null) every visible workflow of the
 * organization. With a cache, the raw rows of its `fixed` edges are kept as rollup rows are
 * (KeptWindow.fixed).
 */
export interface RollupWindow extends TimeWindow, Pick<KeptWindow, 'key' | 'fixed' | 'askedEdges'> {
  readonly workflowUuid: string | null;
}

export interface ReadOptions<D extends string> {
  /** Allowed values per dimension (an OR); absent or null: any value. */
  readonly where?: Partial<Record<D, readonly string[] | null>>;
  /** Values per dimension left out (an AND); absent or null: none. */
  readonly except?: Partial<Record<D, readonly string[] | null>>;
  /** Dimensions the answer keeps apart, besides the window. */
  readonly groupBy: readonly D[];
  /**
   * Organization-wide windows read the rows kept for every visible workflow together
   * (`workflow_uuid` = EVERY_WORKFLOW) instead of summing each workflow's rows. Only for rollups
   * whose writer keeps such rows.
   */
  readonly organizationRows?: boolean;
  /**
   * False when the caller reads no minimum or maximum: they come back null, and the window's
   * edges are then read by subtraction where that reads fewer rows (edgeSides below), which
   * minimum and maximum do not survive. Only for a rollup with `rawTables`, whose edge rows are
   * dear to read, in generically planned reads: for execution counts and error groups, weighing
   * the sides cost more than it saved (README, Performance).
   */
  readonly extremes?: boolean;
  /**
   * The measures to read (all by default). The others are neither read nor summed, and are
   * absent from the answer's values: a caller that needs only counts is spared, for instance,
   * summing credits as decimals in both PostgreSQL and the server for every row.
   */
  readonly measures?: readonly string[];
}

export interface WindowRow<D extends string, MS extends Measures> {
  readonly key: number;
  readonly dimensions: Readonly<Record<D, string>>;
  readonly values: MeasureValues<MS>;
}

type Scope = 'workflow' | 'organization' | 'organization-rows';

/** A kept piece's rows, in the shape fold gives them. */
interface KeptRow {
  readonly dimensions: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, unknown>>;
  /**
   * The row's values of the read's groupBy dimensions, joined: names its group within a window.
   * Made once per row read, so merging finds a group by a string whose hash is already known.
   */
  readonly group: string;
}

/** The name of a row's group: its values of the `groupBy` dimensions, joined. */
function groupOf(groupBy: readonly string[], dimensions: Readonly<Record<string, string>>): string {
  let id = '';
  for (const name of groupBy) id += `${dimensions[name]}\u0000`;
  return id;
}

/** The rows of a piece of rollup rows, kept while its days are unchanged (window-cache.ts). */
const PIECE_ROWS = new KeptKind<readonly KeptRow[]>('rollup piece');

const hasHistogram = (rollup: AnyRollup) =>
  rollup.measureNames.some((name) => rollup.measures[name] === 'histogram');

const isExtreme = (rollup: AnyRollup, name: string) =>
  rollup.measures[name] === 'min' || rollup.measures[name] === 'max';

/**
 * The tables to weigh a read's edges by when they may be subtracted (it is planned once, reads no
 * minimum or maximum, and its rollup names them); undefined otherwise.
 */
const subtractedBy = (rollup: AnyRollup, generic: boolean, extremes: boolean) =>
  generic && !extremes ? rollup.rawTables : undefined;

/** The end of a raw piece's bucket (`g.bucket`, `g.width` seconds wide). */
const BUCKET_END = 'g.bucket + make_interval(secs => g.width)';

/** A raw row's weight in a piece: -1 where the piece's rows are subtracted. */
const SIGN = `(case when p.grain = ${SUBTRACTED} then -1 else 1 end)`;

/**
 * Parameters: $1 organization, $2-$8 the pieces, then one array of allowed values per dimension,
 * then one array of excepted values per dimension.
 */
const FIRST_FILTER = 9;

/** The parameters of a dimension's filter: the allowed values and the excepted ones, each null when not given. */
function filterParams(rollup: AnyRollup, dimension: string): { allowed: string; excepted: string } {
  const index = rollup.dimensionNames.indexOf(dimension);
  if (index < 0) throw new Error(`${rollup.table} has no dimension ${dimension}`);
  const type = rollup.dimensions[dimension];
  return {
    allowed: `$${FIRST_FILTER + index}::${type}[]`,
    excepted: `$${FIRST_FILTER + rollup.dimensionNames.length + index}::${type}[]`,
  };
}

/** `column` passes the reader's allowed and excepted values of `dimension` (each null: no condition). */
function dimensionCondition(rollup: AnyRollup, dimension: string, column: string): string {
  const { allowed, excepted } = filterParams(rollup, dimension);
  return `(${allowed} is null or ${column} = any(${allowed})) and (${excepted} is null or ${column} <> all(${excepted}))`;
}

function rollupColumns(rollup: AnyRollup, extremes: boolean): string[] {
  return [
    ...rollup.dimensionNames.map((name) => `r.${name}`),
    ...rollup.measureNames.flatMap((name) =>
      rollup.measures[name] === 'histogram'
        ? [`array_lower(r.${name}, 1) as ${name}_lo`, `array_to_string(r.${name}, ',', '0') as ${name}`]
        : !extremes && isExtreme(rollup, name)
          ? [`null::int8 as ${name}`]
          : [`r.${name}`],
    ),
  ];
}

/** A measure summed over rows, read from `column` (the measure's own column by default). */
function summed(rollup: AnyRollup, name: string, column = name): string {
  switch (rollup.measures[name]) {
    case 'count':
      return `sum(${column})::int8 as ${name}`;
    case 'decimal':
      return `trim_scale(sum(${column}))::text as ${name}`;
    case 'min':
      return `min(${column})::int8 as ${name}`;
    case 'max':
      return `max(${column})::int8 as ${name}`;
    default:
      throw new Error(`${name} is not summed in SQL`);
  }
}

/**
 * The raw rows of the window's edges, in the rollup rows' shape, each weighed by its piece's sign
 * (subtracted pieces count -1). With a histogram they are summed here per window, dimensions and
 * bin (a raw row's histogram is one item in bin `<m>_lo`), so that what is sent on is bounded by
 * the bins, not by the rows the edges hold; without one the whole answer is summed below.
 */
function rawPart(rollup: AnyRollup, raw: string, extremes: boolean, subtract: boolean): string {
  // Reads that never subtract keep the plain statement: the sign cost execution counts' cheap
  // edge rows measurably (README, Performance).
  const signed = (value: string) => (subtract ? `${value} * ${SIGN}` : value);
  const from = `from pieces p cross join lateral (${raw}) c where p.grain ${subtract ? `in (${RAW}, ${SUBTRACTED})` : `= ${RAW}`}`;
  const dimensions = rollup.dimensionNames.map((name) => `c.${name}`);
  if (!hasHistogram(rollup)) {
    const narrowed = rollup.measureNames.length < Object.keys(rollup.measures).length;
    if (!subtract && extremes && !narrowed) return `select p.window_key, c.* ${from}`;
    const measures = rollup.measureNames.map((name) =>
      isExtreme(rollup, name)
        ? `${extremes ? `c.${name}` : 'null::int8'} as ${name}`
        : `${signed(`c.${name}`)} as ${name}`,
    );
    return `select p.window_key, ${[...dimensions, ...measures].join(', ')} ${from}`;
  }
  const histograms = rollup.measureNames.filter((name) => rollup.measures[name] === 'histogram');
  const keep = [...rollup.dimensionNames, ...histograms.map((name) => `${name}_lo`)];
  const measures = rollup.measureNames.flatMap((name) => {
    const kind = rollup.measures[name];
    if (kind === 'histogram')
      return [
        `c.${name}_lo`,
        subtract
          ? `coalesce(sum(${SIGN}) filter (where c.${name} is not null), 0)::text as ${name}`
          : `count(c.${name})::text as ${name}`,
      ];
    if (kind === 'min' || kind === 'max')
      return [extremes ? summed(rollup, name, `c.${name}`) : `null::int8 as ${name}`];
    // A decimal stays numeric, as the rollup rows beside it have it.
    return [`sum(${signed(`c.${name}`)})${kind === 'count' ? '::int8' : ''} as ${name}`];
  });
  return `select p.window_key, ${dimensions.join(', ')}, ${measures.join(', ')}
       ${from}
       group by p.window_key, ${keep.map((name) => `c.${name}`).join(', ')}`;
}

/**
 * The pieces of `given` with each raw piece that lies inside one finest bucket whose other raw rows
 * are none (as at the edge of a window that ends now) turned into that bucket: its rollup rows are
 * the piece's rows exactly, extremes included, read in one probe (windows.ts, WindowPiece.bucket).
 * The check is the rollup's own raw query over the rest of the bucket, stopped at its first row.
 * Only in generic plans: planned for each execution, the check's second copy of the raw query cost
 * more to plan than it saved (0.3-0.9 ms for the organization's activity, README).
 */
function edgeBuckets(raw: string): string {
  return `
       select g.window_key, case when whole then g.width else g.grain end as grain,
              case when whole then g.bucket else g.lo end as lo,
              case when whole then ${BUCKET_END} else g.hi end as hi, g.workflow_uuid
       from given g
       cross join lateral (
         select g.bucket is not null and not exists (
           select from (
             select g.workflow_uuid, r.lo, r.hi
             from (values (g.bucket, g.lo), (g.hi, ${BUCKET_END})) r(lo, hi)
             where r.lo < r.hi
           ) p
           cross join lateral (${raw}) c
         ) as whole
         -- Not pulled up: pulled up, the check ran once for each of its three uses above.
         offset 0
       ) w`;
}

/**
 * The pieces of `given` with each edge inside one finest bucket read from whichever side of the
 * bucket holds fewer rows: the raw rows of the piece, or the bucket's rollup row less the raw rows
 * of the rest of the bucket (SUBTRACTED pieces; none when the rest holds no row, as at the edge
 * of a window that ends now). The sides are weighed by counting the index entries of the rollup's
 * raw tables (`tables`, RollupSpec.rawTables; not those the read's filters, `sql`, leave out),
 * a fraction of the cost of reading them; each count runs only for an edge (CASE evaluates the
 * branch it takes). Only in generic plans (the counts' planning, like edgeBuckets' check, costs
 * more than it saves when planned for each execution).
 */
function edgeSides(tables: NonNullable<AnyRollup['rawTables']>, sql: Pick<RawSql, 'allowed'>): string {
  const rows = (lo: string, hi: string) =>
    tables
      .map(
        ([table, time, when]) =>
          `(select count(*) from ${table} t where ${when === undefined ? '' : `${when(sql)} and `}t.organization_id = $1 and t.${time} >= ${lo} and t.${time} < ${hi})`,
      )
      .join(' + ');
  return `
       select g.window_key, x.grain, x.lo, x.hi, g.workflow_uuid
       from given g
       cross join lateral (
         select c.rest < c.inside as subtract, c.rest
         from (
           select case when g.bucket is null then 0 else ${rows('g.lo', 'g.hi')} end as inside,
                  case when g.bucket is null then 0 else ${rows('g.bucket', 'g.lo')} + ${rows('g.hi', BUCKET_END)} end as rest
         ) c
         -- Not pulled up: pulled up, the counts ran once for each of their uses below.
         offset 0
       ) w
       cross join lateral (values
         (1, case when w.subtract then g.width else g.grain end, case when w.subtract then g.bucket else g.lo end,
             case when w.subtract then ${BUCKET_END} else g.hi end),
         (2, ${SUBTRACTED}, g.bucket, g.lo),
         (3, ${SUBTRACTED}, g.hi, ${BUCKET_END})
       ) x(i, grain, lo, hi)
       where x.i = 1 or (w.subtract and w.rest > 0 and x.lo < x.hi)`;
}

/**
 * The reading statement. Each piece is a lateral, parameterised index probe: rollup rows by
 * organization, grain and bucket for the aligned middle of a window, raw rows for its edges, so
 * the cost follows the number of pieces, never the number of rows they stand for.
 */
function windowSql(
  rollup: AnyRollup,
  scope: Scope,
  groupBy: readonly string[],
  generic: boolean,
  extremes: boolean,
): string {
  const visibility = generic ? 'hashed' : 'joined';
  const rollupScope =
    scope === 'workflow'
      ? 'and r.workflow_uuid = p.workflow_uuid'
      : scope === 'organization-rows'
        ? `and r.workflow_uuid = '${EVERY_WORKFLOW}'`
        : `and ${isVisibleWorkflow('r.workflow_uuid', visibility)}`;
  const filters = rollup.dimensionNames
    .map((name) => `and ${dimensionCondition(rollup, name, `r.${name}`)}`)
    .join(' ');
  const allowed = (dimension: string) => filterParams(rollup, dimension).allowed;
  const raw = rollup.raw({
    scope: (column) =>
      scope === 'workflow'
        ? `and ${column} = p.workflow_uuid`
        : `and ${isVisibleWorkflow(column, visibility)}`,
    filter: (dimension, column) => `(${dimensionCondition(rollup, dimension, column)})`,
    allowed,
  });
  const weighed = subtractedBy(rollup, generic, extremes);
  const parts = `with given as (
       select * from unnest($2::int[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::uuid[], $7::timestamptz[], $8::int[])
         as p(window_key, grain, lo, hi, workflow_uuid, bucket, width)
       ${scope === 'workflow' ? `where exists (select 1 from workflows w where w.organization_id = $1 and w.uuid = p.workflow_uuid)` : ''}
     ),
     pieces as (${
       !generic
         ? 'select window_key, grain, lo, hi, workflow_uuid from given'
         : weighed !== undefined
           ? edgeSides(weighed, { allowed })
           : edgeBuckets(raw)
     }),
     parts as (
       select p.window_key, c.*
       from pieces p
       cross join lateral (
         select ${rollupColumns(rollup, extremes).join(', ')}
         from ${rollup.table} r
         where r.organization_id = $1 and r.grain = p.grain ${rollupScope}
           and r.bucket_start >= p.lo and r.bucket_start < coalesce(p.hi, 'infinity') ${filters}
       ) c
       where p.grain > 0
       union all
       ${rawPart(rollup, raw, extremes, weighed !== undefined)}
     )`;
  if (hasHistogram(rollup)) return `${parts} select * from parts`;
  const keep = ['window_key', ...groupBy];
  return `${parts}
     select ${[...keep, ...rollup.measureNames.map((name) => summed(rollup, name))].join(', ')}
     from parts group by ${keep.join(', ')}`;
}

/**
 * Whether a read is planned once (a window read's pieces come as arrays and each is an index
 * probe: their values rarely help the planner, and planning them for each execution could cost as
 * much as running them). Each rollup says which of its reads are (RollupSpec.genericPlans).
 */
const isGeneric = (rollup: AnyRollup, scope: Scope) =>
  rollup.genericPlans === 'all' || (rollup.genericPlans === 'per-workflow' && scope === 'workflow');

const statements = new Map<string, string>();

function statement(rollup: AnyRollup, scope: Scope, groupBy: readonly string[], extremes: boolean): string {
  const id = `${rollup.table}|${scope}|${groupBy.join(',')}|${extremes}|${rollup.measureNames.join(',')}`;
  let text = statements.get(id);
  if (text === undefined) {
    const generic = isGeneric(rollup, scope);
    const sql = windowSql(rollup, scope, groupBy, generic, extremes);
    text = generic ? genericPlan(sql) : sql;
    statements.set(id, text);
  }
  return text;
}

/**
 * Folds rows into one answer per window and group. Without a histogram each row already is one
 * (the statement sums per window and group, and a window is read by one statement only), so it is
 * converted as it comes; raw histogram rows are summed here per window and group.
 */
function fold<D extends string, MS extends Measures>(
  rollup: Rollup<D, MS>,
  groupBy: readonly D[],
  rows: readonly Record<string, unknown>[],
): WindowRow<D, MS>[] {
  const summedInSql = !hasHistogram(rollup);
  const groups = new Map<string, Group>();
  const answer: Group[] = [];
  const decimals = new Map<string, bigint>();
  // Each measure's kind and histogram column name, looked up once rather than per row.
  const measures = rollup.measureNames.map((name) => ({
    name,
    kind: rollup.measures[name],
    lo: `${name}_lo`,
  }));
  const newGroup = (row: Record<string, unknown>): Group => {
    const values = emptyValues(measures);
    const dimensions: Record<string, string> = {};
    for (const name of groupBy) dimensions[name] = row[name] as string;
    const group = { key: row.window_key as number, dimensions, values };
    answer.push(group);
    return group;
  };
  for (const [index, row] of rows.entries()) {
    let id: string;
    let group: Group | undefined;
    if (summedInSql) {
      id = String(index);
      group = newGroup(row);
    } else {
      // Dimension values are never null (key columns) and, being PostgreSQL text, never hold NUL.
      id = String(row.window_key);
      for (const name of groupBy) id += `\u0000${row[name] as string}`;
      group = groups.get(id);
      if (!group) {
        group = newGroup(row);
        groups.set(id, group);
      }
    }
    for (const { name, kind, lo } of measures) {
      const value = row[name];
      switch (kind) {
        case 'count':
          group.values[name] = (group.values[name] as number) + Number(value ?? 0);
          break;
        case 'decimal': {
          const units =
            (decimals.get(`${id}|${name}`) ?? 0n) + toUnits(value === null ? null : String(value));
          decimals.set(`${id}|${name}`, units);
          group.values[name] = fromUnits(units);
          break;
        }
        case 'min':
        case 'max':
          if (value !== null && value !== undefined)
            group.values[name] = extreme(kind, group.values[name] as number | null, Number(value));
          break;
        case 'histogram': {
          const first = row[lo] as number | null;
          if (first !== null && value !== null && value !== undefined) {
            (group.values[name] as BinCounts).addText(first, String(value));
          }
          break;
        }
      }
    }
  }
  return answer as unknown as WindowRow<D, MS>[];
}

/** A group's values before any row: nothing counted, no extreme, an empty histogram. */
function emptyValues(
  measures: ReadonlyArray<{ readonly name: string; readonly kind: MeasureKind | undefined }>,
) {
  const values: Record<string, unknown> = {};
  for (const { name, kind } of measures)
    values[name] =
      kind === 'histogram'
        ? new BinCounts()
        : kind === 'min' || kind === 'max'
          ? null
          : kind === 'decimal'
            ? '0'
            : 0;
  return values;
}

interface Group {
  readonly key: number;
  readonly dimensions: Record<string, string>;
  readonly values: Record<string, unknown>;
}

/** A piece of a window, as the reading statement takes it: `key` names its answer. */
interface KeyedPiece {
  readonly key: number;
  readonly piece: WindowPiece;
  readonly workflowUuid: string | null;
}

/**
 * Runs the reading statement over `pieces`, one statement per scope (per-workflow pieces, then
 * organization-wide ones); the rows come keyed by `window_key`, each piece's `key`.
 */
async function readPieces(
  db: Queryable,
  read: AnyRollup,
  organizationId: string,
  pieces: readonly KeyedPiece[],
  options: ReadOptions<string>,
  extremes: boolean,
): Promise<Record<string, unknown>[]> {
  const filters = [
    ...read.dimensionNames.map((name) => options.where?.[name] ?? null),
    ...read.dimensionNames.map((name) => options.except?.[name] ?? null),
  ];
  const rows: Record<string, unknown>[] = [];
  for (const perWorkflow of [true, false]) {
    const scoped = pieces.filter(({ workflowUuid }) => (workflowUuid !== null) === perWorkflow);
    // Windows without pieces (to <= from) hold nothing.
    if (scoped.length === 0) continue;
    const scope: Scope = perWorkflow
      ? 'workflow'
      : options.organizationRows
        ? 'organization-rows'
        : 'organization';
    rows.push(
      ...(await db.query<Record<string, unknown>>(statement(read, scope, options.groupBy, extremes), [
        organizationId,
        scoped.map(({ key }) => key),
        scoped.map(({ piece }) => piece.grain),
        scoped.map(({ piece }) => new Date(piece.from)),
        scoped.map(({ piece }) => (piece.to === null ? null : new Date(piece.to))),
        scoped.map(({ workflowUuid }) => workflowUuid),
        scoped.map(({ piece }) => (piece.bucket === undefined ? null : new Date(piece.bucket))),
        scoped.map(({ piece }) => piece.bucketSeconds ?? null),
        ...filters,
      ])),
    );
  }
  return rows;
}

/**
 * Aggregates a rollup over many windows with at most two statements (per-workflow windows, and
 * organization-wide ones): rollup buckets for the aligned middle of each window, raw rows for its
 * edges. Only rows of workflows that exist are counted, like every read. A window with nothing
 * in it has no rows in the answer. With a cache (window-cache.ts), the rollup-row pieces (and the
 * edges of fixed windows) kept from earlier reads whose days have not changed since are not read
 * again.
 */
export async function readWindows<D extends string, MS extends Measures>(
  db: Queryable,
  rollup: Rollup<D, MS>,
  organizationId: string,
  windows: readonly RollupWindow[],
  options: ReadOptions<D>,
): Promise<WindowRow<D, MS>[]> {
  const extremes = options.extremes ?? true;
  const asked = options.measures;
  // The same rollup, narrowed to the measures asked for: every statement and fold below reads
  // measureNames only.
  const read: Rollup<D, MS> =
    asked === undefined
      ? rollup
      : { ...rollup, measureNames: rollup.measureNames.filter((name) => asked.includes(name)) };
  const reads = cachedReadsOf(db);
  if (reads !== undefined && new Set(windows.map((window) => window.key)).size === windows.length)
    return readCached(db, reads, read, organizationId, windows, options, extremes);
  const pieces = windows.flatMap((window) =>
    coverWindow(read, window).map((piece) => ({ key: window.key, piece, workflowUuid: window.workflowUuid })),
  );
  return fold(read, options.groupBy, await readPieces(db, read, organizationId, pieces, options, extremes));
}

/**
 * readWindows with a cache: each window's pieces are read apart (keyed by piece), those of rollup
 * rows kept, and the pieces summed into their windows here. Raw pieces (a window's edges, which
 * move with a window that ends now) are read every time, but the fixed edges of a window (those
 * a request named, from their second read on: KeptWindow.askedEdges).
 */
async function readCached<D extends string, MS extends Measures>(
  db: Queryable,
  reads: CachedReads,
  read: Rollup<D, MS>,
  organizationId: string,
  windows: readonly RollupWindow[],
  options: ReadOptions<D>,
  extremes: boolean,
): Promise<WindowRow<D, MS>[]> {
  const all: Array<
    KeyedPiece & { readonly window: number; readonly keep: boolean; readonly onRepeat: boolean }
  > = [];
  for (const window of windows) {
    for (const piece of coverWindow(read, window))
      all.push({
        key: all.length,
        piece,
        workflowUuid: window.workflowUuid,
        window: window.key,
        keep: keepsPiece(window, piece),
        onRepeat: window.askedEdges === true && piece.grain <= 0,
      });
  }
  // From the first piece's day, kept or not: a later read of the request that starts there (the
  // buckets around a window that ends now) finds its days read already.
  const versions = all.some(({ keep }) => keep)
    ? await reads.versions(
        db,
        organizationId,
        all.reduce((first, { piece }) => Math.min(first, piece.from), Number.POSITIVE_INFINITY),
      )
    : undefined;
  // The piece's workflow (null: organization-wide, read from the organization's rows or not, as
  // the statement says) names its scope.
  const statementId = `${read.table}|${options.organizationRows === true}|${options.groupBy.join(',')}|${extremes}|${read.measureNames.join(',')}|${JSON.stringify([options.where ?? null, options.except ?? null])}`;
  const cacheKey = (p: (typeof all)[number]) =>
    `${organizationId}|${statementId}|${p.workflowUuid}|${p.piece.grain}|${p.piece.from}|${p.piece.to}`;
  const byPiece = new Map<number, readonly KeptRow[]>();
  const toRead: Array<(typeof all)[number] & { readonly id?: string; readonly version?: string }> = [];
  for (const p of all) {
    if (versions === undefined || !p.keep) {
      toRead.push(p);
      continue;
    }
    const id = cacheKey(p);
    const version = versions.of(p.piece.from, p.piece.to);
    const rows = reads.cache.get(PIECE_ROWS, id, version);
    if (rows === undefined) toRead.push({ ...p, id, version });
    else byPiece.set(p.key, rows);
  }
  const rows = await readPieces(db, read, organizationId, toRead, options, extremes);
  const readRows = new Map<number, KeptRow[]>();
  for (const row of fold(read, options.groupBy, rows)) {
    const list = readRows.get(row.key) ?? [];
    list.push({
      dimensions: row.dimensions,
      values: row.values,
      group: groupOf(options.groupBy, row.dimensions),
    });
    readRows.set(row.key, list);
  }
  for (const p of toRead) {
    const pieceRows = readRows.get(p.key) ?? [];
    byPiece.set(p.key, pieceRows);
    if (p.id !== undefined)
      reads.cache.set(PIECE_ROWS, p.id, p.version!, pieceRows, keptBytes(read, pieceRows), {
        onRepeat: p.onRepeat,
      });
  }
  return merge(read, all, byPiece);
}

/**
 * A row of counts with two dimensions takes about 220 bytes of heap; a histogram adds an object
 * and its run of bins, 8 bytes a bin and about 160 for the rest (measured with rows like fold's,
 * 2026-12-06).
 */
const ROW_BYTES = 220;

/** What a piece's rows take, estimated. */
function keptBytes(rollup: AnyRollup, rows: readonly KeptRow[]): number {
  let bytes = rows.length * ROW_BYTES;
  if (!hasHistogram(rollup)) return bytes;
  for (const row of rows)
    for (const name of rollup.measureNames)
      if (rollup.measures[name] === 'histogram') bytes += 160 + 8 * (row.values[name] as BinCounts).span;
  return bytes;
}

/**
 * Sums pieces' rows into their windows, per window and group, each measure as its kind sums
 * (fold's rules). Values are always new: kept rows are never handed out, nor changed. A window of
 * one piece (an aligned bucket, a segment) takes its piece's rows, copied.
 */
function merge<D extends string, MS extends Measures>(
  rollup: Rollup<D, MS>,
  pieces: ReadonlyArray<{ readonly key: number; readonly window: number }>,
  byPiece: ReadonlyMap<number, readonly KeptRow[]>,
): WindowRow<D, MS>[] {
  const piecesOf = new Map<number, number>();
  for (const { window } of pieces) piecesOf.set(window, (piecesOf.get(window) ?? 0) + 1);
  const histograms = rollup.measureNames.filter((name) => rollup.measures[name] === 'histogram');
  const measures = rollup.measureNames.map((name) => ({ name, kind: rollup.measures[name] }));
  /** By window, its groups by name. */
  const groups = new Map<number, Map<string, Group>>();
  const answer: Group[] = [];
  /** Decimal sums in units, per group and measure, written out once at the end. */
  const units = new Map<Group, Map<string, bigint>>();
  for (const { key, window } of pieces) {
    const rows = byPiece.get(key) ?? [];
    if (piecesOf.get(window) === 1) {
      for (const row of rows) {
        const values = { ...row.values };
        for (const name of histograms) values[name] = (values[name] as BinCounts).copy();
        answer.push({ key: window, dimensions: row.dimensions as Record<string, string>, values });
      }
      continue;
    }
    let inWindow = groups.get(window);
    if (inWindow === undefined) {
      inWindow = new Map();
      groups.set(window, inWindow);
    }
    for (const row of rows) {
      let group = inWindow.get(row.group);
      if (group === undefined) {
        group = {
          key: window,
          dimensions: row.dimensions as Record<string, string>,
          values: emptyValues(measures),
        };
        inWindow.set(row.group, group);
        answer.push(group);
      }
      const values = group.values;
      for (const { name, kind } of measures) {
        const value = row.values[name];
        switch (kind) {
          case 'count':
            values[name] = (values[name] as number) + (value as number);
            break;
          case 'decimal': {
            const sums = units.get(group) ?? new Map<string, bigint>();
            sums.set(name, (sums.get(name) ?? 0n) + toUnits(value as string));
            units.set(group, sums);
            break;
          }
          case 'min':
          case 'max':
            if (value !== null && value !== undefined)
              values[name] = extreme(kind, values[name] as number | null, value as number);
            break;
          case 'histogram':
            (values[name] as BinCounts).addAll(value as BinCounts);
            break;
        }
      }
    }
  }
  for (const [group, sums] of units) for (const [name, sum] of sums) group.values[name] = fromUnits(sum);
  return answer as unknown as WindowRow<D, MS>[];
}
