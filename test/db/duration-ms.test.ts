import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { binOf, LOWER_BOUNDS_SQL } from '../../src/rollups/duration-bins.js';
import { durationMsSql } from '../../src/rollups/durations.rollup.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { seeded } from '../ingest/dataset.js';

const YEAR = 365.25 * 86_400_000;

describe('durations measured in SQL', () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());

  it('gives the same whole milliseconds and bin as ingestion for any pair of stored times', async () => {
    const random = seeded(20261127);
    const pairs: Array<[number, number]> = [
      // Across a daylight-saving change, a leap day, and a second's edge.
      [Date.parse('2026-03-29T00:59:59.999Z'), Date.parse('2026-03-29T01:00:00.001Z')],
      [Date.parse('2028-02-28T23:59:59.500Z'), Date.parse('2028-03-01T00:00:00.499Z')],
      [Date.parse('2026-01-01T00:00:00.000Z'), Date.parse('2026-01-01T00:00:00.000Z')],
      // Finished before it started: never negative.
      [Date.parse('2026-01-01T00:00:01.000Z'), Date.parse('2026-01-01T00:00:00.001Z')],
      [Date.parse('1990-01-01T00:00:00.001Z'), Date.parse('2990-01-01T00:00:00.999Z')],
    ];
    for (let i = 0; i < 2_000; i++) {
      const start = Date.parse('2020-01-01T00:00:00Z') + Math.floor(random() * 20 * YEAR);
      // Durations from a millisecond to centuries, spread over every scale.
      const ms = Math.floor(10 ** (random() * 12.5));
      pairs.push([start, start + ms]);
    }
    const rows = await database.db.query<{ ms: string; bin: number }>(
      `select ${durationMsSql('p.started_at', 'p.finished_at')}::text as ms,
              width_bucket(${durationMsSql('p.started_at', 'p.finished_at')}, ${LOWER_BOUNDS_SQL}) - 1 as bin
       from unnest($1::timestamptz[], $2::timestamptz[]) with ordinality as p(started_at, finished_at, n)
       order by p.n`,
      [
        pairs.map(([from]) => new Date(from).toISOString()),
        pairs.map(([, to]) => new Date(to).toISOString()),
      ],
    );
    assert.equal(rows.length, pairs.length);
    pairs.forEach(([from, to], i) => {
      const expected = Math.max(0, to - from);
      assert.equal(
        Number(rows[i]!.ms),
        expected,
        `${new Date(from).toISOString()} to ${new Date(to).toISOString()}`,
      );
      assert.equal(rows[i]!.bin, binOf(expected));
    });
  });
});
