/**
 * A small, fully determined platform dataset for ingestion tests: whatever the arrival order and
 * however many duplicates, it must end in the same stored state. So every uuid record has one
 * version, except executions, which have an optional earlier non-terminal state (with an earlier
 * startedAt, in another rollup bucket) before their one final state; logs and events of an
 * execution have distinct timestamps (their order is then fully defined).
 */
import type { Database } from '../../src/db/database.js';
import type { TestServer } from '../harness/server.js';

type Raw = Record<string, unknown>;

export interface Dataset {
  readonly records: Raw[];
  readonly workflows: string[];
  readonly deployments: string[];
  readonly executions: string[];
}

/** A deterministic pseudo-random generator (mulberry32), so datasets are reproducible. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A uuid made from a seed and counters: stable across runs, distinct for distinct inputs. */
export function stableUuid(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const T0 = Date.parse('2026-03-01T00:00:00Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

export interface DatasetShape {
  workflows: number;
  executionsPerWorkflow: number;
  logsPerExecution: number;
  eventsPerExecution: number;
}

export function buildDataset(organizationId: string, shape: DatasetShape, seed = 1): Dataset {
  const random = seeded(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const records: Raw[] = [];
  const dataset: Dataset = { records, workflows: [], deployments: [], executions: [] };
  for (let w = 0; w < shape.workflows; w++) {
    const workflowUUID = stableUuid(random);
    dataset.workflows.push(workflowUUID);
    records.push({
      type: 'workflow',
      organizationId,
      uuid: workflowUUID,
      workflowId: `0x${w.toString(16).padStart(64, '0')}`,
      name: `flow-${w}`,
      ownerAddress: `0x${(w % 2).toString(16).padStart(40, 'a')}`,
      status: 'ACTIVE',
      registeredAt: iso(T0 - (w + 1) * 60 * MINUTE),
      workflowSource: 'github.com/acme/flows',
    });
    for (let d = 0; d < 2; d++) {
      const uuid = stableUuid(random);
      dataset.deployments.push(uuid);
      records.push({
        type: 'deployment',
        organizationId,
        uuid,
        workflowUUID,
        status: d === 0 ? 'PAUSED' : pick(['ACTIVE', 'FAILED']),
        deployedAt: iso(T0 + d * 90 * MINUTE + w * MINUTE),
        txHash: `0x${uuid.replace(/-/g, '')}`,
      });
    }
    for (let e = 0; e < shape.executionsPerWorkflow; e++) {
      const uuid = stableUuid(random);
      dataset.executions.push(uuid);
      const startedAt = T0 + Math.floor(random() * 180) * MINUTE + w * 7_000 + e * 1000;
      const final = pick(['SUCCESS', 'FAILURE', 'SUCCESS', 'IN_PROGRESS']);
      const base = { type: 'execution', organizationId, uuid, id: `0x${uuid.slice(0, 8)}`, workflowUUID };
      if (final !== 'IN_PROGRESS' && random() < 0.7) {
        // An earlier, non-terminal state of the same execution, started in an earlier bucket.
        records.push({ ...base, status: 'TRIGGERED', startedAt: iso(startedAt - 6 * MINUTE) });
      }
      records.push({
        ...base,
        status: final,
        startedAt: iso(startedAt),
        ...(final === 'IN_PROGRESS'
          ? {}
          : {
              finishedAt: iso(startedAt + 30_000),
              classifiedStatus: final === 'SUCCESS' ? 'SUCCESS' : 'USER_ERROR',
              creditUsed: random() < 0.5 ? `${Math.floor(random() * 100)}.25` : Math.floor(random() * 10),
              executedInTee: random() < 0.4,
              ...(final === 'FAILURE' ? { errors: [{ error: 'boom', count: 2 }] } : {}),
            }),
      });
      for (let l = 0; l < shape.logsPerExecution; l++) {
        records.push({
          type: 'log',
          organizationId,
          workflowExecutionUUID: uuid,
          nodeID: `node-${l % 2}`,
          message: `step ${l} of ${uuid.slice(0, 8)}`,
          timestamp: iso(startedAt + l * 1000),
        });
      }
      for (let v = 0; v < shape.eventsPerExecution; v++) {
        records.push({
          type: 'event',
          organizationId,
          workflowExecutionUUID: uuid,
          capabilityID: `cap-${v}@1.0.0`,
          status: v === 0 ? 'SUCCESS' : 'FAILURE',
          method: 'run',
          startedAt: iso(startedAt + v * 1000),
          finishedAt: iso(startedAt + v * 1000 + 500),
          ...(v > 0 ? { errors: [{ error: 'capability failed', count: v }] } : {}),
        });
      }
    }
  }
  return dataset;
}

const WORKFLOW_FIELDS = `uuid name status executionCount executionCountByStatus { success failure } creditUsed
  executedAt hasTeeExecutions hasNonTeeExecutions registeredAt workflowId ownerAddress workflowSource`;

/**
 * Every read query's answer over the dataset, as one JSON value: the lists, each workflow (from
 * several `from` points), its deployments and activity, and each execution with logs and events.
 */
export async function readEverything(server: TestServer, key: string, dataset: Dataset): Promise<unknown> {
  const answers: Record<string, unknown> = {};
  const gql = async (name: string, query: string, variables: Record<string, unknown> = {}) => {
    const answer = await server.gql(key, query, variables);
    if (answer.status !== 200 || answer.body.errors) {
      throw new Error(`${name} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    answers[name] = answer.body.data;
  };
  await gql(
    'lists',
    `{ workflows(input: { page: { size: 100 } }) { count data { ${WORKFLOW_FIELDS} } }
       byExecutedAt: workflows(input: { orderBy: { field: EXECUTED_AT, order: DESC }, page: { size: 100 } }) { data { uuid } }
       workflowExecutions(input: { page: { size: 100 } }) { count data { uuid workflowUUID id workflowName status
         classifiedStatus startedAt finishedAt creditUsed errors { error count } executedInTee } }
       byCredit: workflowExecutions(input: { orderBy: { field: CREDIT_USED, order: DESC }, page: { size: 100 } }) { data { uuid } }
       activity: workflowActivity(input: { from: "2026-03-01T00:00:00Z", to: "2026-03-01T05:00:00Z" }) { data { from to successCount failureCount } }
       wideActivity: workflowActivity(input: { from: "2026-02-20T00:00:00Z", to: "2026-03-10T00:00:00Z" }) { data { from to successCount failureCount } } }`,
  );
  for (const uuid of dataset.workflows) {
    await gql(
      `workflow ${uuid}`,
      `query ($uuid: String!) {
         all: workflow(input: { uuid: $uuid, from: "1970-01-01T00:00:00Z" }) { data { ${WORKFLOW_FIELDS} } }
         later: workflow(input: { uuid: $uuid, from: "2026-03-01T01:07:00Z" }) { data { executionCount executionCountByStatus { success failure } creditUsed } }
         workflowDeployments(input: { workflowUUID: $uuid, page: { size: 100 } }) { count data { uuid workflowID status deployedAt
           txHash executionCountByStatus { success failure } hasTeeExecutions hasNonTeeExecutions } }
         workflowActivity(input: { workflowUUID: $uuid, from: "2026-03-01T00:00:00Z", to: "2026-03-01T05:00:00Z" }) { data { from successCount failureCount } }
         workflowExecutions(input: { workflowUuid: $uuid, status: [SUCCESS, IN_PROGRESS], page: { size: 100 } }) { count data { uuid } } }`,
      { uuid },
    );
  }
  for (const uuid of dataset.executions) {
    await gql(
      `execution ${uuid}`,
      `query ($uuid: String!) {
         workflowExecution(input: { uuid: $uuid }) { data { status startedAt finishedAt creditUsed executedInTee } }
         workflowExecutionLogs(input: { workflowExecutionUUID: $uuid }) { data { nodeID message timestamp } }
         workflowExecutionEvents(input: { workflowExecutionUUID: $uuid }) { data { capabilityID status method startedAt finishedAt errors { error count } } } }`,
      { uuid },
    );
  }
  return answers;
}

/** Platform tables, emptied between runs while the organization and its key stay. */
export async function clearPlatformData(db: Database): Promise<void> {
  await db.query(
    'truncate workflows, deployments, executions, execution_logs, execution_events, workflow_rollups, execution_rollups',
  );
}

/** Every row of every table, to prove a request changed nothing. */
export async function snapshotTables(db: Database): Promise<string> {
  const tables = await db.query<{ tablename: string }>(
    `select tablename from pg_tables where schemaname = 'public' order by tablename`,
  );
  const dump: Record<string, unknown> = {};
  for (const { tablename } of tables) {
    dump[tablename] = await db.query(`select * from "${tablename}" t order by t::text`);
  }
  return JSON.stringify(dump);
}

interface CountedRow {
  organization_id: string;
  workflow_uuid: string;
  status: string;
  started_at: Date;
  executed_in_tee: boolean | null;
  credit_used: string | null;
}

const GRAINS_SECONDS = [300, 3600, 86400];

/**
 * The rollups, recomputed from the executions table: each (organization, workflow) total and each
 * bucket at every grain, with zero rows left out. Equal to the stored rollups when they are exact.
 */
export async function rollupDrift(db: Database): Promise<{ expected: string; actual: string }> {
  const executions = await db.query<CountedRow>(
    'select organization_id, workflow_uuid, status, started_at, executed_in_tee, credit_used::text from executions',
  );
  const totals = new Map<string, number[]>();
  const buckets = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, values: number[]) => {
    const current = map.get(key) ?? values.map(() => 0);
    map.set(
      key,
      current.map((v, i) => v + values[i]!),
    );
  };
  for (const e of executions) {
    const credit = Number(e.credit_used ?? 0);
    const tee = e.executed_in_tee ? 1 : 0;
    add(totals, `${e.organization_id}/${e.workflow_uuid}`, [
      1,
      e.status === 'SUCCESS' ? 1 : 0,
      e.status === 'FAILURE' ? 1 : 0,
      tee,
      credit,
    ]);
    for (const grain of GRAINS_SECONDS) {
      const start = Math.floor(e.started_at.getTime() / (grain * 1000)) * grain * 1000;
      add(buckets, `${e.organization_id}/${grain}/${e.workflow_uuid}/${start}/${e.status}`, [1, tee, credit]);
    }
  }
  const storedTotals = await db.query<Record<string, string | number>>(
    `select organization_id, workflow_uuid, execution_count, success_count, failure_count, tee_count, credit_used::text
     from workflow_rollups where execution_count <> 0 or credit_used <> 0 or tee_count <> 0`,
  );
  const storedBuckets = await db.query<Record<string, string | number | Date>>(
    `select organization_id, grain, workflow_uuid, bucket_start, status, execution_count, tee_count, credit_used::text
     from execution_rollups where execution_count <> 0 or credit_used <> 0 or tee_count <> 0`,
  );
  const sorted = (entries: Array<[string, number[]]>) =>
    JSON.stringify(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    expected: sorted([...totals, ...buckets]),
    actual: sorted([
      ...storedTotals.map((r): [string, number[]] => [
        `${r.organization_id}/${r.workflow_uuid}`,
        [r.execution_count, r.success_count, r.failure_count, r.tee_count, r.credit_used].map(Number),
      ]),
      ...storedBuckets.map((r): [string, number[]] => [
        `${r.organization_id}/${r.grain}/${r.workflow_uuid}/${(r.bucket_start as Date).getTime()}/${r.status}`,
        [r.execution_count, r.tee_count, r.credit_used].map(Number),
      ]),
    ]),
  };
}
