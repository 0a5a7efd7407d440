// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatTime, MAX_TIME, MIN_TIME, parseTime } from '../../src/lib/time.js';

/**
 * The reference: RFC 3339's date-time as a pattern, its calendar checked, the instant read by
 * Date.parse (which cuts digits past the millisecond and refuses a 60th second or an offset
 * beyond 23:59). parseTime reads the text by hand for speed and must agree with it on every text.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
function reference(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  if (mo! < 1 || mo! > 12 || d! < 1 || h! > 23 || mi! > 59 || s! > 60) return undefined;
  if (d! > new Date(Date.UTC(y!, mo!, 0)).getUTCDate()) return undefined;
  const ms = Date.parse(text.replace(' ', 'T'));
  return Number.isNaN(ms) || ms < MIN_TIME || ms > MAX_TIME ? undefined : ms;
}

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % n;
  };
}

describe('RFC 3339 times', () => {
  test('are read to the millisecond in any offset, with t, z and a space taken for T and Z', () => {
    assert.equal(parseTime('2026-08-31T14:32:18Z')?.toISOString(), '2026-08-31T14:32:18.000Z');
    assert.equal(parseTime('2026-08-31t14:32:18.5z')?.toISOString(), '2026-08-31T14:32:18.500Z');
    assert.equal(parseTime('2026-01-01 00:00:00.123456789+05:30')?.toISOString(), '2025-12-31T18:30:00.123Z');
    assert.equal(parseTime('0001-01-01T00:00:00Z')?.getTime(), MIN_TIME);
    assert.equal(parseTime('0004-02-29T00:00:00Z')?.toISOString(), '0004-02-29T00:00:00.000Z');
    assert.equal(parseTime('9999-12-31T23:59:59.9999Z')?.getTime(), MAX_TIME);
  });

  test('are refused when impossible, unbounded or out of range', () => {
    for (const text of [
      '2026-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-01T00:00:60Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00',
      '2026-01-01T00:00:00+24:00',
      '2026-01-01T00:00:00+01:60',
      '2026-01-01T00:00:00+0100',
      '2026-01-01T00:00:00.Z',
      '0001-01-01T00:00:00+00:01',
      '9999-12-31T23:59:59-00:01',
      '0000-01-01T00:00:00Z',
      ' 2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00Z ',
      '２026-01-01T00:00:00Z',
      '',
    ]) {
      assert.equal(parseTime(text), undefined, text);
    }
  });

  test('agree with the reference pattern and Date.parse on random, cut and mutated texts', () => {
    const r = random(20261124);
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    const texts: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      const year = [r(10_000), 1970 + r(80), r(120), 9999][r(4)]!;
      const fraction = ['', `.${String(r(1e9)).slice(0, 1 + r(12))}`, '.5'][r(3)];
      const zone = [
        'Z',
        'z',
        '-00:00',
        `+${pad(r(26), 2)}:${pad(r(62), 2)}`,
        `-${pad(r(26), 2)}:${pad(r(62), 2)}`,
      ][r(5)];
      const text = `${pad(year, 4)}-${pad(r(14), 2)}-${pad(r(33), 2)}${['T', 't', ' '][r(3)]}${pad(r(25), 2)}:${pad(r(61), 2)}:${pad(r(62), 2)}${fraction}${zone}`;
      texts.push(text, text.slice(0, r(text.length)));
      const at = r(text.length);
      texts.push(text.slice(0, at) + '0123456789:-.TZ+ x'[r(18)] + text.slice(at + 1));
    }
    let valid = 0;
    for (const text of texts) {
      const expected = reference(text);
      if (expected !== undefined) valid++;
      assert.equal(parseTime(text)?.getTime(), expected, JSON.stringify(text));
    }
    // The generator reaches both sides of every rule.
    assert.ok(valid > 10_000 && valid < texts.length - 10_000, `${valid} of ${texts.length} valid`);
  });

  test('are written with milliseconds only when not zero, the same however often and in whatever order they recur', () => {
    assert.equal(formatTime(new Date('2026-08-31T14:32:18.000Z')), '2026-08-31T14:32:18Z');
    assert.equal(formatTime(new Date('2026-08-31T14:32:18.070Z')), '2026-08-31T14:32:18.070Z');
    const r = random(20261127);
    const expected = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
    // More distinct instants than the formatter keeps, each recurring, whole seconds and not.
    const instants = Array.from(
      { length: 6_000 },
      (_, i) => MIN_TIME + r(2 ** 31) * 100_000 + (i % 2) * r(1000),
    );
    for (let round = 0; round < 3; round++) {
      for (const ms of instants) assert.equal(formatTime(new Date(ms)), expected(ms), String(ms));
      instants.reverse();
    }
    assert.throws(() => formatTime(new Date(Number.NaN)), RangeError);
  });
});
