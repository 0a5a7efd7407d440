// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseRecord } from '../../src/ingest/records.js';
import { liveBatches, recordsBetween, toNdjsonLine, type World } from '../../src/simulate/index.js';
import { DAY, smallWorld, UNTIL } from './world-fixture.js';

const ALL = Number.NEGATIVE_INFINITY;

function digest(world: World, until = UNTIL): string {
  const hash = createHash('sha256');
  for (const record of recordsBetween(world, ALL, until)) hash.update(`${toNdjsonLine(record)}\n`);
  return hash.digest('hex');
}

/** Each execution's last state, and every event and log line, as comparable text. */
function facts(records: Iterable<ReturnType<typeof parseRecord>>) {
  const executions = new Map<string, string>();
  const lines: string[] = [];
  for (const record of records) {
    if (record.type === 'execution') executions.set(record.uuid, toNdjsonLine(record));
    else lines.push(toNdjsonLine(record));
  }
  return { executions, lines: lines.sort() };
}

describe('simulator determinism', () => {
  it('produces identical bytes for the same seed and plan', () => {
    assert.equal(digest(smallWorld()), digest(smallWorld()));
  });

  it('produces different data for a different seed', () => {
    assert.notEqual(digest(smallWorld()), digest(smallWorld({ seed: 'another' })));
  });

  it('gives the same executions at every level of detail, with fewer lines at lower ones', () => {
    const world = smallWorld({ executions: 2000 });
    const at = (detail: 'full' | 'compact' | 'none') => [
      ...recordsBetween(world, ALL, UNTIL, { detail: () => detail }),
    ];
    const [full, compact, none] = [at('full'), at('compact'), at('none')];
    const executions = (records: typeof full) =>
      records.filter((r) => r.type === 'execution').map(toNdjsonLine);
    assert.deepEqual(executions(compact), executions(full));
    assert.deepEqual(executions(none), executions(full));
    assert.ok(full.length > compact.length && compact.length > none.length);
    assert.equal(none.filter((r) => r.type === 'log' || r.type === 'event').length, 0);
  });

  it('writes lines that parse back into exactly the records it generated', () => {
    let count = 0;
    for (const record of recordsBetween(smallWorld({ executions: 3000 }), ALL, UNTIL)) {
      const line = toNdjsonLine(record);
      assert.ok(!line.includes('\n'));
      assert.deepEqual(parseRecord(JSON.parse(line)), record, line);
      count++;
    }
    assert.ok(count > 10_000, `only ${count} records`);
  });

  it('gives the same facts when the history is produced in consecutive windows', () => {
    const world = smallWorld({ executions: 4000 });
    const whole = facts(recordsBetween(world, ALL, UNTIL));
    const cuts = [UNTIL - 3.3 * DAY, UNTIL - 1.7 * DAY, UNTIL - 1234567, UNTIL - 1000];
    const pieces = facts(
      [ALL, ...cuts].flatMap((after, i) => [...recordsBetween(world, after, cuts[i] ?? UNTIL)]),
    );
    // An execution running across a cut appears as IN_PROGRESS first, then in its final state.
    assert.deepEqual(pieces.executions, whole.executions);
    assert.deepEqual(pieces.lines, whole.lines);
  });

  it('lets live batches continue the history without gaps or repeats', async () => {
    const world = smallWorld({ executions: 20_000 });
    let clock = UNTIL + 90_000;
    const controller = new AbortController();
    const batches = [];
    for await (const batch of liveBatches(world, UNTIL, {
      signal: controller.signal,
      tickMs: 5,
      maxStepMs: 60_000,
      now: () => clock,
    })) {
      batches.push(batch);
      clock += 20_000;
      if (batch.until >= UNTIL + 600_000) controller.abort();
    }
    for (const [i, batch] of batches.entries())
      assert.equal(batch.after, i === 0 ? UNTIL : batches[i - 1]!.until);
    const end = batches.at(-1)!.until;
    const live = facts(batches.flatMap((batch) => [...batch.records]));
    const direct = facts(recordsBetween(world, UNTIL, end));
    assert.deepEqual(live, direct);
    assert.ok(live.executions.size > 20, `only ${live.executions.size} live executions`);
    const started = batches
      .flatMap((b) => b.records)
      .filter((r) => r.type === 'execution' && r.status === 'IN_PROGRESS');
    assert.ok(started.length > 0, 'executions should appear as IN_PROGRESS while they run');
  });
});
