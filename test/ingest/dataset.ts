/**
 * A small, fully determined platform dataset for ingestion tests: whatever the arrival order and
 * however many duplicates, it must end in the same stored state. So every uuid record has one
 * version, except executions, which have an optional earlier non-terminal state (with an earlier
 * startedAt, in another rollup bucket) before their one final state; logs and events of an
 * execution have distinct timestamps (their order is then fully defined). Durations vary from a
 * millisecond to minutes, calls succeed and fail by status and by errors, and error messages of
 * one group differ in their numbers, so that the insight aggregates have something to tell apart.
 */

import type { Database } from '../../src/db/database.js';
import { errorGroupOf } from '../../src/rollups/fingerprint.js';
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
      const duration = Math.round(Math.exp(random() * 12));
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
              finishedAt: iso(startedAt + duration),
              classifiedStatus: final === 'SUCCESS' ? 'SUCCESS' : 'USER_ERROR',
              creditUsed: random() < 0.5 ? `${Math.floor(random() * 100)}.25` : Math.floor(random() * 10),
              executedInTee: random() < 0.4,
              ...(final === 'FAILURE'
                ? {
                    errors: [
                      {
                        error: `out of gas: used ${Math.floor(random() * 1e6)} of ${w + 1}000000`,
                        count: 1 + e,
                      },
                      ...(random() < 0.5 ? [{ error: `nonce too low at block ${e}`, count: 1 }] : []),
                    ],
                  }
                : {}),
            }),
      });
      for (let l = 0; l < shape.logsPerExecution; l++) {
        records.push({
          type: 'log',
          organizationId,
          workflowExecutionUUID: uuid,
          nodeID: `node-${l % 2}`,
          message:
            l % 2
              ? `Retrying RPC after ${l * 100} ms (${uuid.slice(0, 8)})`
              : `step ${l} of ${uuid.slice(0, 8)}`,
          timestamp: iso(startedAt + l * 1000),
        });
      }
      for (let v = 0; v < shape.eventsPerExecution; v++) {
        const status = pick(v === 0 ? ['SUCCESS', 'COMPLETED'] : ['FAILED', 'COMPLETED', 'TIMEOUT']);
        const callDuration = Math.round(Math.exp(random() * 10));
        // Later calls may fail with errors; those of a failed execution carry its group too.
        const errors = [
          ...(v > 0 && random() < 0.6
            ? [{ error: `capability ${v} failed after ${callDuration} ms`, count: v }]
            : []),
          ...(v > 0 && final === 'FAILURE'
            ? [{ error: `out of gas: used ${callDuration} of 1000`, count: 1 }]
            : []),
        ];
        records.push({
          type: 'event',
          organizationId,
          workflowExecutionUUID: uuid,
          capabilityID: `cap-${v % 2}@1.0.0`,
          status,
          method: 'run',
          startedAt: iso(startedAt + v * 1000),
          ...(random() < 0.85 ? { finishedAt: iso(startedAt + v * 1000 + callDuration) } : {}),
          ...(errors.length ? { errors } : {}),
        });
      }
    }
  }
  return dataset;
}

const WORKFLOW_FIELDS = `uuid name status executionCount executionCountByStatus { success failure } creditUsed
  executedAt hasTeeExecutions hasNonTeeExecutions registeredAt workflowId ownerAddress workflowSource`;

/** The insight window (rollup buckets and raw edges) and an unaligned one (more raw edges). */
const WINDOW = 'from: "2026-02-28T23:50:00Z", to: "2026-03-01T04:00:00Z"';
const UNALIGNED = 'from: "2026-03-01T00:07:13.500Z", to: "2026-03-01T02:31:07Z"';
const GROUP_FIELDS = `count data { fingerprint pattern sampleMessage occurrences executionCount workflowCount
  capabilityIDs firstSeenAt lastSeenAt activity { from to occurrences } }`;
const DURATION_FIELDS =
  'data { count minMs maxMs meanMs p50Ms p90Ms p95Ms p99Ms histogram { fromMs toMs count } }';
const CAPABILITY_FIELDS = 'count data { capabilityID calls failures failureRate p50Ms p95Ms }';
const MATCH_FIELDS =
  'count countIsExact data { workflowExecutionUUID workflowUUID workflowName nodeID timestamp message }';

/**
 * Every read query's answer over the dataset, as one JSON value: the lists, each workflow (from
 * several `from` points), its deployments and activity, each execution with logs and events, and
 * the insight queries (organization-wide and per workflow, over aligned and unaligned windows).
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
  await gql(
    'insight',
    `query ($gas: String!) {
       groups: errorGroups(input: { ${WINDOW}, page: { size: 100 } }) { ${GROUP_FIELDS} }
       unalignedGroups: errorGroups(input: { ${UNALIGNED}, page: { size: 100 } }) { ${GROUP_FIELDS} }
       callGroups: errorGroups(input: { capabilityID: "cap-1@1.0.0", ${WINDOW}, page: { size: 100 } }) { ${GROUP_FIELDS} }
       durations: durationStats(input: { ${WINDOW} }) { ${DURATION_FIELDS} }
       unalignedDurations: durationStats(input: { ${UNALIGNED}, status: [SUCCESS, FAILURE] }) { ${DURATION_FIELDS} }
       calls: durationStats(input: { capabilityID: "cap-1@1.0.0", ${WINDOW} }) { ${DURATION_FIELDS} }
       failedCalls: durationStats(input: { capabilityID: "cap-1@1.0.0", status: [FAILURE], ${UNALIGNED} }) { ${DURATION_FIELDS} }
       capabilities: capabilityStats(input: { ${WINDOW}, page: { size: 100 } }) { ${CAPABILITY_FIELDS} }
       unalignedCapabilities: capabilityStats(input: { ${UNALIGNED} }) { ${CAPABILITY_FIELDS} }
       logs: searchExecutionLogs(input: { query: "rpc after", ${WINDOW}, page: { size: 100 } }) { ${MATCH_FIELDS} }
       steps: searchExecutionLogs(input: { query: "STEP", nodeID: "node-0", ${UNALIGNED}, page: { size: 100 } }) { ${MATCH_FIELDS} }
       gas: workflowExecutions(input: { errorFingerprint: $gas, page: { size: 100 } }) { count data { uuid } } }`,
    { gas: errorGroupOf('out of gas: used 1 of 1000').fingerprint },
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
         workflowExecutions(input: { workflowUuid: $uuid, status: [SUCCESS, IN_PROGRESS], page: { size: 100 } }) { count data { uuid } }
         errorGroups(input: { workflowUUID: $uuid, ${WINDOW}, page: { size: 100 } }) { ${GROUP_FIELDS} }
         durationStats(input: { workflowUUID: $uuid, ${UNALIGNED} }) { ${DURATION_FIELDS} }
         capabilityStats(input: { workflowUUID: $uuid, ${WINDOW} }) { ${CAPABILITY_FIELDS} } }`,
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

/** Every table ingestion writes: the raw rows, the rollups and the indexes kept beside them. */
export const PLATFORM_TABLES = [
  'workflows',
  'deployments',
  'executions',
  'execution_keys',
  'execution_logs',
  'execution_events',
  'execution_rollups',
  'duration_rollups',
  'error_group_rollups',
  'execution_error_groups',
  'error_groups',
  'orphan_event_executions',
  'orphan_log_days',
  'awaited_workflows',
  'ingest_watermarks',
];

/** Platform tables, emptied between runs while the organization and its key stay. */
export async function clearPlatformData(db: Database): Promise<void> {
  await db.query(`truncate ${PLATFORM_TABLES.join(', ')}`);
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
