import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isNotNull } from '../../src/db/table.js';
import { TABLES } from '../../src/db/tables.js';
import { durations } from '../../src/rollups/durations.rollup.js';
import { errorGroupCounts } from '../../src/rollups/error-groups.rollup.js';
import { executionCounts } from '../../src/rollups/execution-counts.rollup.js';
import { GRAINS } from '../../src/rollups/grains.js';
import { defineRollup, rollupColumns } from '../../src/rollups/rollup.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';

/** information_schema's name (udt_name) for each type a definition may use. */
const UDT: Readonly<Record<string, string>> = {
  integer: 'int4',
  bigint: 'int8',
  boolean: 'bool',
  'int8[]': '_int8',
  'int4[]': '_int4',
};
const udtOf = (type: string) => UDT[type] ?? type;

interface ColumnInfo {
  table_name: string;
  column_name: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
}

const ROLLUPS = [executionCounts, durations, errorGroupCounts];

describe('table definitions', () => {
  let database: TestDatabase;
  let columns: ColumnInfo[];
  before(async () => {
    database = await openTestDatabase();
    columns = await database.db.query<ColumnInfo>(
      `select table_name::text, column_name::text, udt_name::text, is_nullable::text
       from information_schema.columns where table_schema = current_schema()
         and table_name::text not in (select relname from pg_class where relispartition)
       order by table_name, ordinal_position`,
    );
  });
  after(() => database?.close());

  const columnsOf = (table: string) => columns.filter((c) => c.table_name === table);

  it('give every column of each table, in order, with its type and nullability', () => {
    for (const table of TABLES) {
      assert.deepEqual(
        Object.entries(table.spec).map(([name, spec]) => ({
          name,
          type: udtOf(table.columns.find(([column]) => column === name)![1]),
          notNull: isNotNull(spec),
        })),
        columnsOf(table.name).map((c) => ({
          name: c.column_name,
          type: c.udt_name,
          notNull: c.is_nullable === 'NO',
        })),
        table.name,
      );
    }
  });

  // A rollup lists its key first, whatever the order the migration created the columns in.
  it('give every column of each rollup table with its type', () => {
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    for (const rollup of ROLLUPS) {
      assert.deepEqual(
        rollupColumns(rollup)
          .map(([name, type]) => ({ name, type: udtOf(type) }))
          .sort(byName),
        columnsOf(rollup.table)
          .map((c) => ({ name: c.column_name, type: c.udt_name }))
          .sort(byName),
        rollup.table,
      );
    }
  });

  it('keep each rollup at rungs of the one grain ladder, finest first, up to the day', () => {
    assert.deepEqual(
      ROLLUPS.map((rollup) => rollup.grains.map((grain) => grain.seconds)),
      [
        [300, 3600, 86400],
        [60, 300, 900, 3600, 21600, 86400],
        [300, 3600, 86400],
      ],
    );
    const spec = { table: 't', dimensions: {}, measures: { n: 'count' }, raw: () => '' } as const;
    const day = GRAINS.at(-1)!;
    for (const grains of [
      [],
      GRAINS.slice(0, -1),
      [...GRAINS].reverse(),
      [GRAINS[0]!, GRAINS[0]!, day],
      [{ seconds: 120, ms: 120_000 }, day],
    ]) {
      assert.throws(() => defineRollup({ ...spec, grains }), /grains of the ladder/);
    }
    for (const grains of [[GRAINS[1]!, day], GRAINS.slice(1), GRAINS]) {
      assert.deepEqual(defineRollup({ ...spec, grains }).grains, grains);
    }
  });

  it('cover every table the migrations create', () => {
    const defined = [...TABLES.map((t) => t.name), ...ROLLUPS.map((r) => r.table), 'schema_migrations'];
    assert.deepEqual([...new Set(columns.map((c) => c.table_name))].sort(), defined.sort());
  });
});
