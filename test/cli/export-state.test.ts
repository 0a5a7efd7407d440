// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isEmptyWindow,
  nextState,
  planWindow,
  type WindowRequest,
} from '../../src/cli/commands/export/export-state.js';
import { formatDuration, parseDuration, parseInstant } from '../../src/cli/time-input.js';

const NOW = Date.parse('2026-06-01T12:00:30.750Z');
const request = (fields: Partial<WindowRequest> = {}): WindowRequest => ({
  kind: 'executions',
  filter: {},
  since: undefined,
  until: undefined,
  lagMs: 5 * 60_000,
  now: NOW,
  ...fields,
});

describe('export windows', () => {
  it('exports [since, until] as given when there is no state file', () => {
    const since = new Date('2026-05-01T00:00:00Z');
    const window = planWindow(undefined, undefined, request({ since }));
    assert.deepEqual(window, { from: since, to: undefined, skip: new Set() });
  });

  it('stops an incremental run at now minus the lag, in whole seconds, or at an earlier --until', () => {
    const first = planWindow('s.json', undefined, request());
    assert.equal(first?.to?.toISOString(), '2026-06-01T11:55:30.000Z');
    assert.equal(first?.from, undefined);
    const until = new Date('2026-05-02T00:00:00Z');
    assert.equal(planWindow('s.json', undefined, request({ until }))?.to?.toISOString(), until.toISOString());
  });

  it('resumes at the saved watermark, skipping the uuids already written at that instant', () => {
    const state = nextState(
      request(),
      { from: undefined, to: new Date('2026-05-02T00:00:00Z'), skip: new Set() },
      ['a', 'b'],
    );
    const window = planWindow('s.json', state, request({ since: new Date('2020-01-01T00:00:00Z') }));
    assert.equal(window?.from?.toISOString(), '2026-05-02T00:00:00.000Z');
    assert.deepEqual([...(window?.skip ?? [])], ['a', 'b']);
  });

  it('has nothing to do while the watermark is ahead of now minus the lag', () => {
    const state = nextState(request(), { from: undefined, to: new Date(NOW), skip: new Set() }, []);
    assert.equal(isEmptyWindow(planWindow('s.json', state, request())), true);
    assert.equal(isEmptyWindow(planWindow('s.json', state, request({ now: NOW + 6 * 60_000 }))), false);
  });

  it('keeps the skipped uuids when a run covers a single instant', () => {
    const at = new Date('2026-05-02T00:00:00Z');
    const state = nextState(request(), { from: at, to: at, skip: new Set(['a']) }, ['c']);
    assert.deepEqual(state.boundary, ['a', 'c']);
    const later = nextState(request(), { from: at, to: new Date(NOW), skip: new Set(['a']) }, []);
    assert.deepEqual(later.boundary, []);
  });
});

describe('time arguments', () => {
  it('reads durations, dates and date-times, and rejects anything else', () => {
    assert.equal(parseDuration('1h30m'), 90 * 60_000);
    assert.equal(parseDuration('7d'), 7 * 86_400_000);
    assert.equal(parseDuration('soon'), undefined);
    assert.equal(parseInstant('30d', NOW)?.toISOString(), '2026-05-02T12:00:30.000Z');
    assert.equal(parseInstant('2026-03-01', NOW)?.toISOString(), '2026-03-01T00:00:00.000Z');
    assert.equal(parseInstant('2026-03-01T12:00:00+02:00', NOW)?.toISOString(), '2026-03-01T10:00:00.000Z');
    assert.equal(parseInstant('now', NOW)?.toISOString(), '2026-06-01T12:00:31.000Z');
    assert.equal(parseInstant('2026-02-30', NOW), undefined);
    assert.equal(parseInstant('yesterday', NOW), undefined);
  });

  it('prints durations short', () => {
    assert.deepEqual([850, 2950, 60_000, 245_000, 3_600_000, 3_780_000, 86_400_000].map(formatDuration), [
      '850ms',
      '2.95s',
      '1m',
      '4m 05s',
      '1h',
      '1h 03m',
      '1d',
    ]);
  });
});
