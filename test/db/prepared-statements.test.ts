import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { type Database, genericPlan } from '../../src/db/database.js';
import { openPostgres, type PostgresOptions, statementName } from '../../src/db/postgres.js';
import { TEST_DB } from '../harness/database.js';

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

describe('prepared statements on PostgreSQL', { skip: TEST_DB !== 'postgres' && 'PostgreSQL only' }, () => {
  const name = `wfapi_test_prepared_${randomBytes(4).toString('hex')}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  before(async () => {
    await admin.connect();
    await admin.query(`create database ${name}`);
  });
  after(async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  /** Runs `use` on a pool of its own over the scratch database (one connection unless told), closed after. */
  const withPool = async (options: Partial<PostgresOptions>, use: (db: Database) => Promise<void>) => {
    const db = openPostgres(url.toString(), { poolSize: 1, statementTimeoutMs: 10_000, ...options });
    try {
      await use(db);
    } finally {
      await db.close();
    }
  };

  /** The prepared statements of the pool's one connection (a session sees only its own). */
  const preparedOn = (db: Database) =>
    db.query<{ name: string; statement: string }>(
      'select name, statement from pg_prepared_statements where statement not like $1',
      ['%pg_prepared_statements%'],
    );

  it('gives one text one name, and different texts different names', () => {
    const text = 'select $1::int as n';
    assert.equal(statementName(text, [1]), statementName(text, [2]));
    assert.notEqual(statementName(text, [1]), statementName('select $1::int as m', [1]));
    assert.match(statementName(text, [1]) ?? '', /^wfapi_[0-9a-f]{32}$/);
  });

  it('sends statements without parameters unnamed, so that several statements in one text still run', async () => {
    assert.equal(statementName('select 1; select 2', undefined), undefined);
    await withPool({}, async (db) => {
      await db.query('create table if not exists t (n int); insert into t values (1); drop table t');
      assert.deepEqual(await preparedOn(db), []);
    });
  });

  it('prepares a parameterised statement once per connection and reuses it', async () => {
    await withPool({}, async (db) => {
      const text = 'select $1::int + 1 as n';
      assert.deepEqual(await db.query(text, [1]), [{ n: 2 }]);
      assert.deepEqual(await db.query(text, [41]), [{ n: 42 }]);
      await db.transaction((tx) => tx.query(text, [2]));
      const prepared = await preparedOn(db);
      assert.deepEqual(
        prepared.map((p) => p.name),
        [statementName(text, [1])],
      );
    });
  });

  it('prepares nothing when turned off (for poolers that do not keep them)', async () => {
    await withPool({ preparedStatements: false }, async (db) => {
      assert.deepEqual(await db.query('select $1::int * 2 as n', [21]), [{ n: 42 }]);
      assert.deepEqual(await preparedOn(db), []);
    });
  });

  it('turns JIT compilation off on every connection it opens', async () => {
    // The server's default (on since PostgreSQL 12): what a plain connection gets.
    const plain = new pg.Client({ connectionString: url.toString() });
    await plain.connect();
    const serverDefault = (await plain.query<{ jit: string }>('show jit')).rows[0]!.jit;
    await plain.end();
    assert.equal(serverDefault, 'on');
    await withPool({ poolSize: 2 }, async (db) => {
      // Two transactions at once hold two different connections.
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const settings = Promise.all(
        [0, 1].map(() =>
          db.transaction(async (tx) => {
            const [row] = await tx.query<{ jit: string; pid: number }>(
              'select current_setting($1) as jit, pg_backend_pid() as pid',
              ['jit'],
            );
            await held;
            return row!;
          }),
        ),
      );
      setTimeout(release, 50);
      const rows = await settings;
      assert.notEqual(rows[0]!.pid, rows[1]!.pid);
      assert.deepEqual(
        rows.map((r) => r.jit),
        ['off', 'off'],
      );
    });
  });

  it('plans a statement marked genericPlan generically, and every other one for its values, on one shared connection', async () => {
    await withPool({}, async (db) => {
      await db.query('create table plan_probe (id int primary key)');
      const marked = genericPlan('select count(*)::int as n from plan_probe where id > $1');
      const unmarked = 'select count(*)::int as n from plan_probe where id < $1';
      const inTransaction = 'select count(*)::int as n from plan_probe where id = $1';
      for (let i = 0; i < 3; i++) {
        await db.query(marked, [i]);
        await db.query(unmarked, [i]);
        // Right after a marked statement on the same connection: a transaction plans for its values.
        await db.query(marked, [i]);
        await db.transaction((tx) => tx.query(inTransaction, [i]));
      }
      const plans = await db.query<{ statement: string; generic_plans: number; custom_plans: number }>(
        `select statement, generic_plans::int, custom_plans::int from pg_prepared_statements
         where statement not like $1`,
        ['%pg_prepared_statements%'],
      );
      const of = (text: string) => {
        const row = plans.find((p) => p.statement === text);
        return row && [row.generic_plans, row.custom_plans];
      };
      // PostgreSQL's own choice plans the first five executions for their values.
      assert.deepEqual(of(marked), [6, 0]);
      assert.deepEqual(of(unmarked), [0, 3]);
      assert.deepEqual(of(inTransaction), [0, 3]);
    });
  });

  it('runs a marked statement like any other when prepared statements are off', async () => {
    await withPool({ preparedStatements: false }, async (db) => {
      const [row] = await db.query<{ mode: string }>(genericPlan('select current_setting($1) as mode'), [
        'plan_cache_mode',
      ]);
      assert.equal(row!.mode, 'auto');
    });
  });
});
