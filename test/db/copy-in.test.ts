import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { RowValues } from '../../src/db/copy-text.js';
import type { Columns } from '../../src/db/unnest-insert.js';
import { copyFresh } from '../../src/ingest/copy-fresh.store.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../harness/database.js';

const COLUMNS: Columns<keyof Row> = [
  ['id', 'int'],
  ['label', 'text'],
  ['payload', 'bytea'],
  ['at', 'timestamptz'],
  ['flag', 'boolean'],
  ['amount', 'numeric'],
  ['doc', 'jsonb'],
];
type Row = {
  id: number;
  label: string | null;
  payload: Uint8Array | null;
  at: Date | null;
  flag: boolean | null;
  amount: string | null;
  doc: string | null;
};
/** A row's values by column name: COPY writes them in COLUMNS' order, whatever the object's own. */
const values = (r: Row): RowValues<keyof Row> => ({
  doc: r.doc,
  amount: r.amount,
  flag: r.flag,
  at: r.at,
  payload: r.payload,
  label: r.label,
  id: r.id,
});

describe(`bulk writes with COPY (${TEST_DB})`, () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
    await database.db.query(
      `create table copy_probe (id int primary key, label text, payload bytea, at timestamptz, flag boolean,
                                amount numeric, doc jsonb, seq bigint generated always as identity)`,
    );
  });
  after(() => database.close());
  beforeEach(() => database.db.query('delete from copy_probe'));

  const stored = () =>
    database.db.query<Omit<Row, 'doc'> & { doc: unknown }>(
      'select id, label, payload, at, flag, amount::text as amount, doc from copy_probe order by id',
    );

  it('stores every value exactly as given, whatever characters the text holds', async () => {
    const awkward = 'tab\there, newline\nhere, CR\rhere, backslash \\ and \\N, "quotes", émoji 🚀, \\x41';
    const rows: Row[] = [
      {
        id: 1,
        label: awkward,
        payload: Uint8Array.from([0, 9, 10, 92, 255]),
        at: new Date('1970-01-01T00:00:00.001Z'),
        flag: true,
        amount: '12345678901234567890.000000000000000001',
        doc: JSON.stringify({ k: 'a\tb\\c\n"d"', n: [1, null] }),
      },
      { id: 2, label: null, payload: null, at: null, flag: null, amount: null, doc: null },
      {
        id: 3,
        label: '',
        payload: new Uint8Array(0),
        at: new Date('9999-12-31T23:59:59.999Z'),
        flag: false,
        amount: '0',
        doc: '[]',
      },
    ];
    const copied = await database.db.transaction((tx) => copyFresh(tx, 'copy_probe', COLUMNS, rows, values));
    assert.equal(copied, true);
    const back = await stored();
    assert.equal(back.length, 3);
    assert.equal(back[0]!.label, awkward);
    assert.deepEqual([...back[0]!.payload!], [0, 9, 10, 92, 255]);
    assert.equal(back[0]!.at!.toISOString(), '1970-01-01T00:00:00.001Z');
    assert.equal(back[0]!.flag, true);
    assert.equal(back[0]!.amount, '12345678901234567890.000000000000000001');
    assert.deepEqual(back[0]!.doc, { k: 'a\tb\\c\n"d"', n: [1, null] });
    assert.deepEqual(
      [back[1]!.label, back[1]!.payload, back[1]!.at, back[1]!.flag, back[1]!.amount, back[1]!.doc],
      [null, null, null, null, null, null],
    );
    assert.equal(back[2]!.label, '');
    assert.equal(back[2]!.payload!.length, 0);
    assert.equal(back[2]!.at!.toISOString(), '9999-12-31T23:59:59.999Z');
    assert.equal(back[2]!.flag, false);
    assert.deepEqual(back[2]!.doc, []);
  });

  it('streams a batch larger than one chunk of COPY text whole', async () => {
    const rows = Array.from(
      { length: 3000 },
      (_, i): Row => ({
        id: i,
        label: `row ${i} `.padEnd(100, '.'),
        payload: null,
        at: null,
        flag: null,
        amount: null,
        doc: null,
      }),
    );
    assert.equal(
      await database.db.transaction((tx) => copyFresh(tx, 'copy_probe', COLUMNS, rows, values)),
      true,
    );
    const [count] = await database.db.query<{ n: number; labels: number }>(
      `select count(*)::int as n, count(distinct label)::int as labels from copy_probe`,
    );
    assert.deepEqual(count, { n: 3000, labels: 3000 });
  });

  it('stores none of the rows when one already exists, and the transaction goes on', async () => {
    const row = (id: number, label: string): Row => ({
      id,
      label,
      payload: null,
      at: null,
      flag: null,
      amount: null,
      doc: null,
    });
    await database.db.transaction((tx) => copyFresh(tx, 'copy_probe', COLUMNS, [row(2, 'original')], values));
    const outcome = await database.db.transaction(async (tx) => {
      const copied = await copyFresh(
        tx,
        'copy_probe',
        COLUMNS,
        [row(1, 'new'), row(2, 'again'), row(3, 'new')],
        values,
      );
      // The transaction is usable after the conflict: the savepoint was rolled back.
      await tx.query(`insert into copy_probe (id, label) values (4, 'after')`);
      return copied;
    });
    assert.equal(outcome, false);
    assert.deepEqual(
      (await stored()).map((r) => [r.id, r.label]),
      [
        [2, 'original'],
        [4, 'after'],
      ],
    );
  });

  it('stores none of the rows when the batch repeats a key within itself', async () => {
    const row = (id: number): Row => ({
      id,
      label: 'x',
      payload: null,
      at: null,
      flag: null,
      amount: null,
      doc: null,
    });
    const copied = await database.db.transaction((tx) =>
      copyFresh(tx, 'copy_probe', COLUMNS, [row(1), row(2), row(1)], values),
    );
    assert.equal(copied, false);
    assert.equal((await stored()).length, 0);
  });

  it('passes any other failure on, undoing the transaction', async () => {
    const bad = [
      { id: 1, label: 'ok', payload: null, at: null, flag: null, amount: 'not a number', doc: null },
    ];
    await assert.rejects(
      database.db.transaction((tx) => copyFresh(tx, 'copy_probe', COLUMNS, bad, values)),
      /numeric/,
    );
    assert.equal((await stored()).length, 0);
  });
});
