import type { Database } from '../../src/db/database.js';
import { deployment, event, execution, ingest, log, type Tenant, workflow } from '../harness/fixtures.js';

export const T0 = Date.parse('2026-05-04T10:00:00Z');
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
/** A window around the data. */
export const WINDOW = { from: iso(T0 - 2 * HOUR), to: iso(T0 + 24 * HOUR) };

export interface Incident {
  readonly workflowUuid: string;
  readonly workflowName: string;
  readonly quietUuid: string;
  readonly oldDeploymentUuid: string;
  readonly newDeploymentUuid: string;
  readonly firstFailureUuid: string;
  readonly lastSuccessUuid: string;
  readonly failureUuids: readonly string[];
}

/**
 * A workflow that ran fine until a deployment at T0, then failed four times in a row with a
 * capability error (index out of range) and log lines that say so; and a quiet second workflow.
 * `tag` makes the messages of one organization unlike another's.
 */
export async function buildIncident(db: Database, tenant: Tenant, tag: string): Promise<Incident> {
  const org = tenant.organizationId;
  const flow = workflow(org, { name: `price-feed-${tag}` });
  const quiet = workflow(org, { name: `quiet-${tag}` });
  const workflowUuid = flow.uuid as string;
  const oldDeployment = deployment(org, workflowUuid, { deployedAt: iso(T0 - 10 * HOUR) });
  const newDeployment = deployment(org, workflowUuid, { deployedAt: iso(T0) });
  const records: Record<string, unknown>[] = [flow, quiet, oldDeployment, newDeployment];
  let lastSuccessUuid = '';
  for (let i = 0; i < 3; i++) {
    const ok = execution(org, workflowUuid, {
      status: 'SUCCESS',
      startedAt: iso(T0 - (3 - i) * HOUR),
      finishedAt: iso(T0 - (3 - i) * HOUR + 2000 + i * 100),
    });
    lastSuccessUuid = ok.uuid as string;
    records.push(
      ok,
      event(org, ok.uuid as string, {
        capabilityID: `fetch-${tag}@1`,
        status: 'COMPLETED',
        startedAt: iso(T0 - (3 - i) * HOUR),
        finishedAt: iso(T0 - (3 - i) * HOUR + 500),
      }),
    );
  }
  const failureUuids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const start = T0 + (i + 1) * HOUR;
    const failed = execution(org, workflowUuid, {
      status: 'FAILURE',
      startedAt: iso(start),
      finishedAt: iso(start + 5000 + i * 1000),
      errors: [{ error: `index out of range [${i + 7}] with length ${i + 7} (${tag})`, count: 1 }],
    });
    const uuid = failed.uuid as string;
    failureUuids.push(uuid);
    records.push(
      failed,
      event(org, uuid, {
        capabilityID: `fetch-${tag}@1`,
        status: 'COMPLETED',
        startedAt: iso(start),
        finishedAt: iso(start + 400),
      }),
      event(org, uuid, {
        capabilityID: `write-${tag}@2`,
        status: 'FAILED',
        startedAt: iso(start + 500),
        finishedAt: iso(start + 4000),
        errors: [{ error: `write reverted: gas ${1000 + i} (${tag})`, count: 1 }],
      }),
      log(org, uuid, { nodeID: 'node-1', message: `starting run ${i} ${tag}`, timestamp: iso(start + 1) }),
      log(org, uuid, { nodeID: 'node-2', message: `fetched price ${tag}`, timestamp: iso(start + 2) }),
      log(org, uuid, {
        nodeID: 'node-2',
        message: `write failed: reverted ${tag}`,
        timestamp: iso(start + 3),
      }),
      log(org, uuid, { nodeID: 'node-1', message: `done ${tag}`, timestamp: iso(start + 4) }),
    );
  }
  await ingest(db, records);
  return {
    workflowUuid,
    workflowName: flow.name as string,
    quietUuid: quiet.uuid as string,
    oldDeploymentUuid: oldDeployment.uuid as string,
    newDeploymentUuid: newDeployment.uuid as string,
    firstFailureUuid: failureUuids[0]!,
    lastSuccessUuid,
    failureUuids,
  };
}
