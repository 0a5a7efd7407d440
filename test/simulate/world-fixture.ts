import type { IngestRecord } from '../../src/ingest/records.js';
import { createWorld, type SimulationPlan, type World } from '../../src/simulate/index.js';

/** A fixed end for generated histories, so that every run of a test sees the same data. */
export const UNTIL = Date.parse('2026-03-02T00:00:00Z');
export const DAY = 86_400_000;

/** A small world ending at UNTIL: a few days, a few thousand executions. */
export function smallWorld(overrides: Partial<SimulationPlan> = {}): World {
  const days = overrides.days ?? 4;
  return createWorld({
    seed: 'test',
    organizationId: '6a1f0b4e-1f53-4d0e-9d4b-7f1b5c0e2a11',
    workflows: 12,
    executions: 8000,
    ...overrides,
    days,
    start: overrides.start ?? UNTIL - days * DAY,
  });
}

export type Execution = Extract<IngestRecord, { type: 'execution' }>;
export type Event = Extract<IngestRecord, { type: 'event' }>;
export type Log = Extract<IngestRecord, { type: 'log' }>;

/** Records grouped by kind, and each execution's events and logs. */
export function index(records: readonly IngestRecord[]) {
  const executions = records.filter((r): r is Execution => r.type === 'execution');
  const events = new Map<string, Event[]>();
  const logs = new Map<string, Log[]>();
  const add = <T>(map: Map<string, T[]>, key: string, value: T) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const record of records) {
    if (record.type === 'event') add(events, record.workflowExecutionUUID, record);
    if (record.type === 'log') add(logs, record.workflowExecutionUUID, record);
  }
  return {
    executions,
    workflows: records.filter((r) => r.type === 'workflow'),
    deployments: records.filter((r) => r.type === 'deployment'),
    events,
    logs,
  };
}
