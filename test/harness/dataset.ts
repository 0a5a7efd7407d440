import type { Database } from '../../src/db/database.js';
import { deployment, event, execution, ingest, log, workflow } from './fixtures.js';

type Raw = Record<string, unknown>;

export interface DatasetOptions {
  readonly workflows?: number;
  readonly executions?: number;
  /** startedAt of the first execution; each next one starts 7 minutes later. */
  readonly start?: string;
  /** Executions that get log lines and capability events (the first ones). */
  readonly detailed?: number;
}

export interface Dataset {
  readonly workflows: Raw[];
  readonly deployments: Raw[];
  readonly executions: Raw[];
  readonly logs: Raw[];
  readonly events: Raw[];
}

const NAMES = ['alpha-feed', 'beta-sync', 'gamma-report', 'delta-oracle', 'epsilon-bridge'];
const STEP_MS = 7 * 60_000;

/**
 * Varied, deterministic platform data for one organization, stored through ingestion: workflows
 * with two deployments each; executions 7 minutes apart cycling through success, failure with
 * errors, and in-progress; exact decimal credits; log lines on three nodes and a capability
 * timeline for the first `detailed` executions.
 */
export async function seedDataset(
  db: Database,
  organizationId: string,
  options: DatasetOptions = {},
): Promise<Dataset> {
  const start = Date.parse(options.start ?? '2026-03-01T00:00:00Z');
  const workflows = Array.from({ length: options.workflows ?? 3 }, (_, i) =>
    workflow(organizationId, {
      name: `${NAMES[i % NAMES.length]}${i >= NAMES.length ? `-${i}` : ''}`,
      registeredAt: new Date(start - (30 - i) * 86_400_000).toISOString(),
    }),
  );
  const deployments = workflows.flatMap((wf, i) => [
    deployment(organizationId, wf.uuid as string, {
      status: 'FAILED',
      errorMessage: 'binary rejected',
      deployedAt: new Date(start - (20 - i) * 86_400_000).toISOString(),
    }),
    deployment(organizationId, wf.uuid as string, {
      status: 'ACTIVE',
      deployedAt: new Date(start - (10 - i) * 86_400_000).toISOString(),
    }),
  ]);
  const executions: Raw[] = [];
  const logs: Raw[] = [];
  const events: Raw[] = [];
  for (let i = 0; i < (options.executions ?? 30); i++) {
    const wf = workflows[i % workflows.length]!;
    const startedAt = start + i * STEP_MS;
    const failed = i % 5 === 3;
    const running = i % 10 === 9;
    const finishedAt = running ? undefined : startedAt + (5 + (i % 7)) * 1000;
    const record = execution(organizationId, wf.uuid as string, {
      status: running ? 'IN_PROGRESS' : failed ? 'FAILURE' : 'SUCCESS',
      classifiedStatus: running ? undefined : failed ? 'USER_ERROR' : 'SUCCESS',
      startedAt: new Date(startedAt).toISOString(),
      finishedAt: finishedAt === undefined ? undefined : new Date(finishedAt).toISOString(),
      creditUsed: `${i}.${String(i % 100).padStart(2, '0')}0000000000000001`,
      executedInTee: i % 2 === 0,
      errors: failed ? [{ error: 'http fetch returned 502', count: 2 }] : undefined,
    });
    executions.push(record);
    if (i >= (options.detailed ?? 5)) continue;
    const uuid = record.uuid as string;
    const at = (ms: number) => new Date(startedAt + ms).toISOString();
    events.push(
      event(organizationId, uuid, {
        capabilityID: 'cron-trigger@1.0.0',
        startedAt: at(0),
        finishedAt: at(200),
      }),
      event(organizationId, uuid, {
        capabilityID: 'http-fetch@2.1.0',
        method: 'GET',
        status: failed ? 'FAILURE' : 'SUCCESS',
        startedAt: at(250),
        finishedAt: at(3200),
        errors: failed ? [{ error: 'upstream 502', count: 2 }] : undefined,
      }),
      event(organizationId, uuid, {
        capabilityID: 'chain-write@1.0.0',
        status: running ? 'IN_PROGRESS' : 'SUCCESS',
        startedAt: at(3300),
        finishedAt: running ? undefined : at(4900),
      }),
    );
    logs.push(
      log(organizationId, uuid, { nodeID: 'node-b', message: 'fetched price 1234.5', timestamp: at(3100) }),
      log(organizationId, uuid, { nodeID: 'node-a', message: 'trigger fired', timestamp: at(100) }),
      log(organizationId, uuid, { nodeID: 'node-c', message: 'report signed', timestamp: at(4000) }),
    );
  }
  await ingest(db, [...workflows, ...deployments, ...executions, ...logs, ...events]);
  return { workflows, deployments, executions, logs, events };
}
