-- wfapi schema, version 1.
-- Every secondary index starts with organization_id: every read is scoped to one organization.
-- uuids are globally unique (primary keys) so that ingestion can refuse a uuid that belongs to
-- another organization; reads always filter by organization_id as well.
-- Timestamps are stored with millisecond precision (ingestion truncates).

create table organizations (
  id uuid primary key,
  tenant_id integer generated always as identity unique,
  display_name text not null,
  restriction_status text not null default 'FULL_ACCESS',
  active_status text not null default 'ACTIVE',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table members (
  id uuid primary key,
  organization_id uuid not null references organizations (id),
  user_id uuid,
  email_address text not null,
  display_name text not null,
  member_type text,
  member_status text not null default 'JOINED',
  deploy_access boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  invited_by_user uuid,
  invited_at timestamptz,
  joined_at timestamptz,
  removed_by_user uuid,
  removed_at timestamptz
);
create index members_org_created on members (organization_id, created_at, id);

-- Only a SHA-256 of the key's secret part is stored; the id is the key's public lookup part.
create table api_keys (
  id uuid primary key,
  organization_id uuid not null references organizations (id),
  member_id uuid not null references members (id),
  name text not null,
  secret_hash bytea not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index api_keys_org_created on api_keys (organization_id, created_at, id);

create table workflows (
  uuid uuid primary key,
  organization_id uuid not null,
  workflow_id text not null,
  name text not null,
  owner_address text not null,
  status text not null,
  registered_at timestamptz not null,
  workflow_source text not null default '',
  updated_at timestamptz not null default now()
);
create index workflows_org_registered on workflows (organization_id, registered_at desc, uuid desc);
create index workflows_org_name on workflows (organization_id, name, uuid);

create table deployments (
  uuid uuid primary key,
  organization_id uuid not null,
  workflow_uuid uuid not null,
  status text not null,
  deployed_at timestamptz not null,
  tx_hash text,
  error_message text,
  binary_url text,
  config_url text,
  updated_at timestamptz not null default now()
);
create index deployments_org_workflow_deployed on deployments (organization_id, workflow_uuid, deployed_at desc, uuid desc);

create table executions (
  uuid uuid primary key,
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
  updated_at timestamptz not null default now()
);
create index executions_org_started on executions (organization_id, started_at desc, uuid desc);
create index executions_org_workflow_started on executions (organization_id, workflow_uuid, started_at desc, uuid desc);
create index executions_org_status_started on executions (organization_id, status, started_at desc, uuid desc);

-- Log and event lines have no identity of their own: line_hash (SHA-256 of the line's content)
-- makes a line sent twice stored once; seq keeps arrival order for ties.
create table execution_logs (
  organization_id uuid not null,
  workflow_execution_uuid uuid not null,
  line_hash bytea not null,
  seq bigint generated always as identity,
  node_id text not null,
  message text not null,
  timestamp timestamptz not null,
  primary key (organization_id, workflow_execution_uuid, line_hash)
);

create table execution_events (
  organization_id uuid not null,
  workflow_execution_uuid uuid not null,
  line_hash bytea not null,
  seq bigint generated always as identity,
  capability_id text not null,
  status text not null,
  method text,
  started_at timestamptz not null,
  finished_at timestamptz,
  errors jsonb,
  primary key (organization_id, workflow_execution_uuid, line_hash)
);

-- Rollups, maintained by ingestion in the same transaction as the executions they count, so
-- that aggregates cost the same at ten million executions as at one thousand.
-- All-time totals per workflow (the inventory page).
create table workflow_rollups (
  organization_id uuid not null,
  workflow_uuid uuid not null,
  execution_count bigint not null default 0,
  success_count bigint not null default 0,
  failure_count bigint not null default 0,
  tee_count bigint not null default 0,
  credit_used numeric not null default 0,
  primary key (organization_id, workflow_uuid)
);

-- Counts per time bucket at three grains (300, 3600, 86400 seconds), per workflow and status.
-- A count over any window is assembled from the coarsest buckets that fit inside it plus an
-- exact scan of the two partial edges (see modules/shared/window-count.ts).
create table execution_rollups (
  organization_id uuid not null,
  grain integer not null,
  workflow_uuid uuid not null,
  bucket_start timestamptz not null,
  status text not null,
  execution_count bigint not null default 0,
  tee_count bigint not null default 0,
  credit_used numeric not null default 0,
  primary key (organization_id, grain, workflow_uuid, bucket_start, status)
);
create index execution_rollups_org_grain_bucket on execution_rollups (organization_id, grain, bucket_start);
