/**
 * Range-partitions executions, log lines and events by month of their time (contract section 6;
 * docs/partitions.md). Each table is rebuilt: the old one is renamed, a partitioned one with the
 * same columns is created with a partition for every month that holds rows (and the months ahead,
 * and DEFAULT), the rows are copied with their arrival numbers (seq), the old table is dropped,
 * and the keys and indexes are built on the loaded partitions.
 *
 * A partitioned table's keys must include its partition column, so the executions' primary key
 * can no longer keep a uuid to one organization: execution_keys does, one row per execution uuid
 * ever stored, kept when retention drops the execution itself.
 */

import type { Transaction } from '../database.js';

// Frozen as version 6 had them (a migration never imports live code; src/db/partitions.ts keeps
// the partitions from then on): the tables, the partitions' names and bounds, and the months
// made ahead of the current one.
const PARTITIONED_TABLES = [
  { table: 'executions', column: 'started_at' },
  { table: 'execution_logs', column: 'timestamp' },
  { table: 'execution_events', column: 'started_at' },
] as const;
type PartitionedTable = (typeof PARTITIONED_TABLES)[number];
const MONTHS_AHEAD = 2;
const defaultPartitionName = (table: string): string => `${table}_default`;
const monthOf = (year: number, month: number) => {
  const d = new Date(Date.UTC(year, month, 1));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() };
};
const monthLiteral = ({ year, month }: { year: number; month: number }) =>
  `${year}-${String(month + 1).padStart(2, '0')}-01 00:00:00+00`;

/** The partition of one month (created empty: the rows are copied once every month has one). */
async function createMonthPartition(tx: Transaction, spec: PartitionedTable, first: Date): Promise<void> {
  const month = monthOf(first.getUTCFullYear(), first.getUTCMonth());
  const next = monthOf(month.year, month.month + 1);
  const name = `${spec.table}_p${month.year}${String(month.month + 1).padStart(2, '0')}`;
  if ((await tx.query(`select to_regclass('${name}') is not null as made`))[0]?.made === true) return;
  await tx.query(
    `create table ${name} partition of ${spec.table} for values from ('${monthLiteral(month)}') to ('${monthLiteral(next)}')`,
  );
}

interface Rebuild {
  readonly spec: PartitionedTable;
  readonly columns: string;
  /** The columns copied, in order. */
  readonly copied: string;
  readonly primaryKey: string;
  readonly indexes: readonly string[];
  readonly dropIndexes: readonly string[];
  /** The sequence numbering arrival (seq), replacing the identity a partitioned table cannot have before PostgreSQL 17. */
  readonly sequence?: string;
}

const [EXECUTIONS, LOGS, EVENTS] = PARTITIONED_TABLES;

const REBUILDS: readonly Rebuild[] = [
  {
    spec: EXECUTIONS,
    columns: `uuid uuid not null,
      organization_id uuid not null,
      workflow_uuid uuid not null,
      id text not null,
      status text not null,
      classified_status text,
      started_at timestamptz not null,
      finished_at timestamptz,
      credit_used numeric,
      errors jsonb,
      executed_in_tee boolean,
      updated_at timestamptz not null default now()`,
    copied:
      'uuid, organization_id, workflow_uuid, id, status, classified_status, started_at, finished_at, credit_used, errors, executed_in_tee, updated_at',
    primaryKey: 'uuid, started_at',
    dropIndexes: [
      'executions_org_started',
      'executions_org_workflow_started',
      'executions_org_status_started',
    ],
    indexes: [
      'create index executions_org_started on executions (organization_id, started_at desc, uuid desc)',
      'create index executions_org_workflow_started on executions (organization_id, workflow_uuid, started_at desc, uuid desc)',
      'create index executions_org_status_started on executions (organization_id, status, started_at desc, uuid desc)',
    ],
  },
  {
    spec: LOGS,
    columns: `organization_id uuid not null,
      workflow_execution_uuid uuid not null,
      line_hash bytea not null,
      seq bigint not null default nextval('execution_logs_arrival'),
      node_id text not null,
      message text not null,
      timestamp timestamptz not null`,
    copied: 'organization_id, workflow_execution_uuid, line_hash, seq, node_id, message, timestamp',
    primaryKey: 'organization_id, workflow_execution_uuid, line_hash, timestamp',
    dropIndexes: ['execution_logs_message_trgm', 'execution_logs_org_timestamp'],
    indexes: [
      'create index execution_logs_message_trgm on execution_logs using gin (message gin_trgm_ops)',
      'create index execution_logs_org_timestamp on execution_logs (organization_id, timestamp)',
    ],
    sequence: 'execution_logs_arrival',
  },
  {
    spec: EVENTS,
    columns: `organization_id uuid not null,
      workflow_execution_uuid uuid not null,
      line_hash bytea not null,
      seq bigint not null default nextval('execution_events_arrival'),
      capability_id text not null,
      status text not null,
      method text,
      started_at timestamptz not null,
      finished_at timestamptz,
      errors jsonb`,
    copied:
      'organization_id, workflow_execution_uuid, line_hash, seq, capability_id, status, method, started_at, finished_at, errors',
    primaryKey: 'organization_id, workflow_execution_uuid, line_hash, started_at',
    dropIndexes: ['execution_events_org_started'],
    indexes: ['create index execution_events_org_started on execution_events (organization_id, started_at)'],
    sequence: 'execution_events_arrival',
  },
];

async function rebuild(tx: Transaction, r: Rebuild): Promise<void> {
  const { table, column } = r.spec;
  const old = `${table}_unpartitioned`;
  // Triggers another migration may have put on the table are put back on the partitioned one.
  const triggers = await tx.query<{ def: string }>(
    `select pg_get_triggerdef(oid) as def from pg_trigger where tgrelid = '${table}'::regclass and not tgisinternal`,
  );
  await tx.query(`alter table ${table} rename to ${old}`);
  await tx.query(`alter table ${old} rename constraint ${table}_pkey to ${old}_pkey`);
  for (const index of r.dropIndexes) await tx.query(`drop index ${index}`);
  if (r.sequence) await tx.query(`create sequence ${r.sequence} as bigint`);
  await tx.query(`create table ${table} (${r.columns}) partition by range (${column})`);
  if (r.sequence) await tx.query(`alter sequence ${r.sequence} owned by ${table}.seq`);
  await tx.query(`create table ${defaultPartitionName(table)} partition of ${table} default`);
  const months = await tx.query<{ month: Date }>(
    `select distinct date_trunc('month', ${column}, 'UTC') as month from ${old} order by 1`,
  );
  for (const { month } of months) await createMonthPartition(tx, r.spec, month);
  await tx.query(`insert into ${table} (${r.copied}) select ${r.copied} from ${old}`);
  if (r.sequence) {
    await tx.query(`select setval('${r.sequence}', coalesce((select max(seq) from ${old}), 0) + 1, false)`);
  }
  await tx.query(`drop table ${old}`);
  await tx.query(`alter table ${table} add primary key (${r.primaryKey})`);
  for (const index of r.indexes) await tx.query(index);
  for (const { def } of triggers) await tx.query(def);
}

export async function up(tx: Transaction): Promise<void> {
  // Global ownership of execution uuids, and where each execution lies in time (its partition).
  await tx.query(`create table execution_keys (
    uuid uuid primary key,
    organization_id uuid not null,
    started_at timestamptz not null
  )`);
  await tx.query(
    'insert into execution_keys (uuid, organization_id, started_at) select uuid, organization_id, started_at from executions',
  );
  // The first instant whose raw rows retention keeps (one row, once retention has run).
  await tx.query(`create table raw_retention (
    only_row boolean primary key default true check (only_row),
    kept_from timestamptz not null
  )`);
  for (const r of REBUILDS) await rebuild(tx, r);
  // The current month and the months ahead, so that live data does not land in DEFAULT.
  const now = new Date();
  for (const spec of PARTITIONED_TABLES) {
    for (let ahead = 0; ahead <= MONTHS_AHEAD; ahead++) {
      await createMonthPartition(
        tx,
        spec,
        new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + ahead, 1)),
      );
    }
  }
}
