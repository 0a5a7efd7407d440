import { json, type RowOf, table } from './table.js';

/** One error message of an execution's or an event's error list, with how often it occurred. */
export interface ErrorCount {
  error: string;
  count: number;
}

/*
 * One definition per table of the migrated schema (src/db/migrations), columns in creation
 * order; rollup tables are described by their rollup (src/rollups/*.rollup.ts) instead.
 * test/db/tables.test.ts checks every definition against the database after migration.
 */

export const organizations = table('organizations', {
  id: 'uuid not null',
  tenant_id: 'integer not null',
  display_name: 'text not null',
  restriction_status: 'text not null',
  active_status: 'text not null',
  created_at: 'timestamptz not null',
  updated_at: 'timestamptz not null',
});
export type OrganizationRow = RowOf<typeof organizations>;

export const members = table('members', {
  id: 'uuid not null',
  organization_id: 'uuid not null',
  user_id: 'uuid',
  email_address: 'text not null',
  display_name: 'text not null',
  member_type: 'text',
  member_status: 'text not null',
  deploy_access: 'boolean not null',
  created_at: 'timestamptz not null',
  updated_at: 'timestamptz not null',
  invited_by_user: 'uuid',
  invited_at: 'timestamptz',
  joined_at: 'timestamptz',
  removed_by_user: 'uuid',
  removed_at: 'timestamptz',
});
export type MemberRow = RowOf<typeof members>;

export const apiKeys = table('api_keys', {
  id: 'uuid not null',
  organization_id: 'uuid not null',
  member_id: 'uuid not null',
  name: 'text not null',
  secret_hash: 'bytea not null',
  created_at: 'timestamptz not null',
  expires_at: 'timestamptz',
  revoked_at: 'timestamptz',
  last_used_at: 'timestamptz',
});
export type ApiKeyTableRow = RowOf<typeof apiKeys>;

export const workflows = table('workflows', {
  uuid: 'uuid not null',
  organization_id: 'uuid not null',
  workflow_id: 'text not null',
  name: 'text not null',
  owner_address: 'text not null',
  status: 'text not null',
  registered_at: 'timestamptz not null',
  workflow_source: 'text not null',
  updated_at: 'timestamptz not null',
});
export type WorkflowTableRow = RowOf<typeof workflows>;

export const deployments = table('deployments', {
  uuid: 'uuid not null',
  organization_id: 'uuid not null',
  workflow_uuid: 'uuid not null',
  status: 'text not null',
  deployed_at: 'timestamptz not null',
  tx_hash: 'text',
  error_message: 'text',
  binary_url: 'text',
  config_url: 'text',
  updated_at: 'timestamptz not null',
});
export type DeploymentTableRow = RowOf<typeof deployments>;

export const executions = table('executions', {
  uuid: 'uuid not null',
  organization_id: 'uuid not null',
  workflow_uuid: 'uuid not null',
  id: 'text not null',
  status: 'text not null',
  classified_status: 'text',
  started_at: 'timestamptz not null',
  finished_at: 'timestamptz',
  credit_used: 'numeric',
  errors: json<ErrorCount[]>(),
  executed_in_tee: 'boolean',
  updated_at: 'timestamptz not null',
});
export type ExecutionTableRow = RowOf<typeof executions>;

/** Who owns each execution uuid ever stored, and where the execution lies in time (its partition). */
export const executionKeys = table('execution_keys', {
  uuid: 'uuid not null',
  organization_id: 'uuid not null',
  started_at: 'timestamptz not null',
});

/** Since when raw rows are kept, once retention has run (docs/partitions.md). */
export const rawRetention = table('raw_retention', {
  only_row: 'boolean not null',
  kept_from: 'timestamptz not null',
});

export const executionLogs = table('execution_logs', {
  organization_id: 'uuid not null',
  workflow_execution_uuid: 'uuid not null',
  line_hash: 'bytea not null',
  seq: 'bigint not null',
  node_id: 'text not null',
  message: 'text not null',
  timestamp: 'timestamptz not null',
});
export type LogTableRow = RowOf<typeof executionLogs>;

export const executionEvents = table('execution_events', {
  organization_id: 'uuid not null',
  workflow_execution_uuid: 'uuid not null',
  line_hash: 'bytea not null',
  seq: 'bigint not null',
  capability_id: 'text not null',
  status: 'text not null',
  method: 'text',
  started_at: 'timestamptz not null',
  finished_at: 'timestamptz',
  errors: json<ErrorCount[]>(),
});
export type EventTableRow = RowOf<typeof executionEvents>;

export const executionErrorGroups = table('execution_error_groups', {
  organization_id: 'uuid not null',
  execution_uuid: 'uuid not null',
  fingerprint: 'text not null',
  capability_id: 'text not null',
  occurrences: 'bigint not null',
  /** The execution's start; null while only its events' errors have arrived. */
  started_at: 'timestamptz',
});

export const errorGroups = table('error_groups', {
  organization_id: 'uuid not null',
  fingerprint: 'text not null',
  pattern: 'text not null',
  sample_message: 'text not null',
  first_seen_at: 'timestamptz not null',
  last_seen_at: 'timestamptz not null',
});

export const orphanEventExecutions = table('orphan_event_executions', {
  organization_id: 'uuid not null',
  execution_uuid: 'uuid not null',
});

/**
 * The days of log lines stored before their execution (migration 0016): when the execution
 * arrives, those days' rollup versions are raised, since the lines become searchable.
 */
export const orphanLogDays = table('orphan_log_days', {
  organization_id: 'uuid not null',
  execution_uuid: 'uuid not null',
  day: 'timestamptz not null',
});

/** Workflows that stored executions name but that have not arrived (migration 0013). */
export const awaitedWorkflows = table('awaited_workflows', {
  organization_id: 'uuid not null',
  workflow_uuid: 'uuid not null',
});

export const ingestWatermarks = table('ingest_watermarks', {
  organization_id: 'uuid not null',
  data_as_of: 'timestamptz not null',
});

export const executionChanges = table('execution_changes', {
  id: 'bigint not null',
  organization_id: 'uuid not null',
  execution_uuid: 'uuid not null',
  changed_at: 'timestamptz not null',
});
export type ExecutionChangeTableRow = RowOf<typeof executionChanges>;
export const alertRules = table('alert_rules', {
  id: 'uuid not null',
  organization_id: 'uuid not null',
  name: 'text not null',
  condition: 'text not null',
  workflow_uuid: 'uuid',
  classified_status: 'text',
  threshold: 'numeric',
  window_seconds: 'integer',
  min_executions: 'integer',
  for_seconds: 'integer',
  target: 'text not null',
  url: 'text not null',
  secret_box: 'bytea',
  severity: 'text not null',
  enabled: 'boolean not null',
  disabled_reason: 'text',
  firing: 'boolean not null',
  fired_at: 'timestamptz',
  evaluated_at: 'timestamptz',
  created_at: 'timestamptz not null',
  updated_at: 'timestamptz not null',
  // ANOMALY (migration 0011).
  metric: 'text',
  sensitivity: 'numeric',
  // SLO_BURN and EXECUTION_STUCK (migration 0012).
  service_level_objective_id: 'uuid',
  slo_status: 'text',
  factor: 'float8',
  min_duration_seconds: 'integer',
});
export type AlertRuleRow = RowOf<typeof alertRules>;

export const webhookDeliveries = table('webhook_deliveries', {
  id: 'uuid not null',
  organization_id: 'uuid not null',
  rule_id: 'uuid not null',
  event_key: 'text not null',
  event_type: 'text not null',
  payload: json<Record<string, unknown>>(true),
  status: 'text not null',
  attempts: 'integer not null',
  next_attempt_at: 'timestamptz not null',
  give_up_at: 'timestamptz not null',
  last_attempt_at: 'timestamptz',
  response_status: 'integer',
  last_error: 'text',
  delivered_at: 'timestamptz',
  created_at: 'timestamptz not null',
});
export type WebhookDeliveryRow = RowOf<typeof webhookDeliveries>;

export const serviceLevelObjectives = table('service_level_objectives', {
  id: 'uuid not null',
  organization_id: 'uuid not null',
  name: 'text not null',
  workflow_uuid: 'uuid',
  indicator: 'text not null',
  target: 'float8 not null',
  threshold_ms: 'bigint',
  period_days: 'integer not null',
  created_at: 'timestamptz not null',
  updated_at: 'timestamptz not null',
});
export type ServiceLevelObjectiveRow = RowOf<typeof serviceLevelObjectives>;

export const stuckExecutions = table('stuck_executions', {
  rule_id: 'uuid not null',
  execution_uuid: 'uuid not null',
  organization_id: 'uuid not null',
  workflow_uuid: 'uuid not null',
  started_at: 'timestamptz not null',
  fired_at: 'timestamptz not null',
});
export type StuckExecutionRow = RowOf<typeof stuckExecutions>;

/** A rollup recount a migration asked for, done after the last migration (src/db/migrate.ts). */
export const rollupRecounts = table('rollup_recounts', {
  requested_by: 'text not null',
  requested_at: 'timestamptz not null',
});

/**
 * A counter per organization and day of rollup buckets, raised by each ingestion that changes the
 * day's rollup rows (migration 0015): what a reader's kept answers are checked against
 * (src/rollups/window-cache.ts).
 */
export const rollupVersions = table('rollup_versions', {
  organization_id: 'uuid not null',
  day: 'timestamptz not null',
  version: 'bigint not null',
});

/** Every table defined here. */
export const TABLES = [
  organizations,
  members,
  apiKeys,
  workflows,
  deployments,
  executions,
  executionKeys,
  rawRetention,
  executionLogs,
  executionEvents,
  executionErrorGroups,
  errorGroups,
  orphanEventExecutions,
  orphanLogDays,
  awaitedWorkflows,
  ingestWatermarks,
  executionChanges,
  alertRules,
  webhookDeliveries,
  serviceLevelObjectives,
  stuckExecutions,
  rollupRecounts,
  rollupVersions,
] as const;
