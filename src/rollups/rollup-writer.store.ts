import type { CopyValue } from '../db/copy-text.js';
import type { Transaction } from '../db/database.js';
import { type OnConflict, onConflict, unnestUpsert } from '../db/unnest-insert.js';
import { fromUnits } from '../lib/decimal.js';
import { type AnyRollup, EVERY_WORKFLOW, keyColumns, type Measures, rollupColumns } from './rollup.js';
import type { DeltaRow, DeltaValue, RollupDeltas } from './rollup-deltas.js';

/**
 * A histogram's bins as the text of an int4[] whose lower bound is the first bin, empty bins null
 * (a bit of the array's null bitmap, where a zero takes four bytes; migration 0014, int4 since 0017):
 * `[3:5]={1,NULL,2}`.
 */
export function histogramText(bins: ReadonlyMap<number, number>): string | null {
  const indexes = [...bins.keys()].filter((bin) => bins.get(bin) !== 0);
  if (indexes.length === 0) return null;
  const lo = Math.min(...indexes);
  const hi = Math.max(...indexes);
  const counts: (number | 'NULL')[] = [];
  for (let bin = lo; bin <= hi; bin++) counts.push(bins.get(bin) || 'NULL');
  return `[${lo}:${hi}]={${counts.join(',')}}`;
}

function sqlValue(value: DeltaValue): CopyValue {
  if (typeof value === 'bigint') return fromUnits(value);
  if (value instanceof Map) return histogramText(value);
  return value;
}

/** How rows of a measure fold together in SQL. */
export const AGGREGATE: Readonly<Record<Measures[string], string>> = {
  count: 'sum',
  decimal: 'sum',
  min: 'min',
  max: 'max',
  histogram: 'wfapi_hist_sum',
};

/** How each measure column takes in a delta on conflict. */
function combine(table: string, name: string, kind: Measures[string]): string {
  switch (kind) {
    case 'count':
    case 'decimal':
      return `${table}.${name} + excluded.${name}`;
    case 'min':
      return `least(${table}.${name}, excluded.${name})`;
    case 'max':
      return `greatest(${table}.${name}, excluded.${name})`;
    case 'histogram':
      return `wfapi_hist_add(${table}.${name}, excluded.${name})`;
  }
}

/** A rollup row takes in the new row's measures, each as its kind combines. */
const addMeasures = (rollup: AnyRollup): OnConflict => ({
  key: keyColumns(rollup),
  set: rollup.measureNames.map(
    (name) => [name, combine(rollup.table, name, rollup.measures[name]!)] as const,
  ),
});

/**
 * Adds summed deltas to their rollup rows in one statement (rows in key order, so that concurrent
 * writers of different organizations never wait on each other in opposite orders). Returns the
 * rows a removal touched, whose extremes the caller refreshes when the rollup has any.
 */
export async function applyDeltas<D extends string, MS extends Measures>(
  tx: Transaction,
  deltas: RollupDeltas<D, MS>,
): Promise<DeltaRow<D>[]> {
  if (deltas.size === 0) return [];
  const { rollup } = deltas;
  const rows = deltas.sorted();
  const upsert = unnestUpsert(
    rollup.table,
    rollupColumns(rollup),
    rows.map((row) => {
      const values: Record<string, CopyValue> = {
        organization_id: row.key.organizationId,
        grain: row.key.grain,
        bucket_start: new Date(row.key.bucketStart),
      };
      for (const name of rollup.dimensionNames) values[name] = row.key.dimensions[name]!;
      for (const name of rollup.measureNames) values[name] = sqlValue(row.values[name]!);
      return values;
    }),
    addMeasures(rollup),
  );
  await tx.query(upsert.text, upsert.params);
  return rows.filter((row) => row.removed);
}

/**
 * Adds the rows of workflows that just became visible (their workflow record arrived after their
 * executions) to the organization-wide rows (`workflow_uuid` = EVERY_WORKFLOW), which sum the
 * visible workflows only. A rollup without organization-wide rows needs no such step.
 */
export async function addToOrganizationRows(
  tx: Transaction,
  rollup: AnyRollup,
  organizationId: string,
  workflowUuids: readonly string[],
): Promise<void> {
  if (workflowUuids.length === 0) return;
  const keys = keyColumns(rollup);
  const grouped = keys.filter((name) => name !== 'workflow_uuid');
  const selected = [
    ...keys.map((name) => (name === 'workflow_uuid' ? `'${EVERY_WORKFLOW}'::uuid` : `r.${name}`)),
    ...rollup.measureNames.map((name) => `${AGGREGATE[rollup.measures[name]!]}(r.${name})`),
  ];
  // Several workflows' rows fold into one organization-wide row: summed first, then added.
  await tx.query(
    `insert into ${rollup.table} (${[...keys, ...rollup.measureNames].join(', ')})
     select ${selected.join(', ')} from ${rollup.table} r
     where r.organization_id = $1 and r.workflow_uuid = any($2::uuid[])
     group by ${grouped.map((name) => `r.${name}`).join(', ')}
     order by ${grouped.map((name) => `r.${name}`).join(', ')}
     ${onConflict(addMeasures(rollup))}`,
    [organizationId, workflowUuids],
  );
}
