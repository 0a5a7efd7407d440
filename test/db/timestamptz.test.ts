import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { openPostgres } from '../../src/db/postgres.js';
import { timestamptzParser } from '../../src/db/timestamptz.js';
import { TEST_DB } from '../harness/database.js';

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** node-postgres's own parser (postgres-date), which the fast path must agree with. */
const reference = pg.types.getTypeParser(1184, 'text') as (text: string) => Date | number | null;
/** The parser under test, recording what it hands to node-postgres's. */
function recording() {
  const handedOn: string[] = [];
  const parse = timestamptzParser((text) => {
    handedOn.push(text);
    return reference(text);
  });
  return { parse, handedOn };
}

/** A value as comparable: an instant's milliseconds, or the parser's other answers as they are. */
const instant = (value: unknown) => (value instanceof Date ? value.getTime() : value);

/** A deterministic sequence of numbers in [0, 1) (no Math.random: a failure must repeat). */
function* sequence(seed: number) {
  let state = seed;
  for (;;) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    yield state / 2 ** 31;
  }
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

describe('timestamptz text as PostgreSQL in UTC sends it', () => {
  it('reads the UTC layout to the instant node-postgres reads, with every number of fraction digits', () => {
    const next = sequence(7);
    const { parse, handedOn } = recording();
    for (let i = 0; i < 20_000; i++) {
      const at = new Date(
        Date.UTC(1000, 0, 1) + Math.floor(next.next().value! * 8_999 * 365.2425 * 86_400_000),
      );
      const digits = i % 7;
      const fraction = digits === 0 ? '' : `.${pad(Math.floor(next.next().value! * 10 ** digits), digits)}`;
      const text = `${pad(at.getUTCFullYear(), 4)}-${pad(at.getUTCMonth() + 1, 2)}-${pad(at.getUTCDate(), 2)} ${pad(at.getUTCHours(), 2)}:${pad(at.getUTCMinutes(), 2)}:${pad(at.getUTCSeconds(), 2)}${fraction}+00`;
      assert.equal(instant(parse(text)), instant(reference(text)), text);
    }
    // All of them without the fallback.
    assert.deepEqual(handedOn, []);
  });

  it('hands every other text to node-postgres: other zones, early and BC years, infinity, anything malformed', () => {
    const others = [
      '2026-10-31 23:59:58.058+05:30',
      '2026-10-31 23:59:58-08',
      '2026-10-31 23:59:58Z',
      '0099-03-01 12:00:00+00',
      '0999-12-31 23:59:59.999+00',
      '2026-10-31 23:59:58+00 BC',
      '12026-10-31 23:59:58+00',
      'infinity',
      '-infinity',
      '2026-10-31 23:59:5x+00',
      '2026-10-31 23:59:58.+00',
      '2026-10-31T23:59:58+00',
      '2026-10-31',
    ];
    const { parse, handedOn } = recording();
    for (const text of others) assert.deepEqual(instant(parse(text)), instant(reference(text)), text);
    assert.deepEqual(handedOn, others);
  });

  it('reads what PostgreSQL sends to the instant PostgreSQL means', {
    skip: TEST_DB !== 'postgres' && 'PostgreSQL only',
  }, async () => {
    const db = openPostgres(ADMIN_URL, { poolSize: 1, statementTimeoutMs: 10_000 });
    try {
      const rows = await db.query<{ at: Date; ms: string }>(
        `select at, (extract(epoch from at) * 1000)::numeric(20, 3)::text as ms
         from (values (timestamptz '2026-10-31 23:59:58.058123+00'), (timestamptz '2024-02-29 00:00:00+00'),
                      (timestamptz '1999-12-31 23:59:59.9999+00'), (timestamptz '2026-06-01 12:00:00.5+02')) v(at)
         where $1::int = 1`,
        [1],
      );
      assert.equal(rows.length, 4);
      for (const row of rows) assert.equal(row.at.getTime(), Math.trunc(Number(row.ms)), row.ms);
    } finally {
      await db.close();
    }
  });
});
