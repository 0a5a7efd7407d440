-- wfapi schema, version 12: service level objectives and the alert conditions built on them
-- (contract section 7, "Service level objectives" and "New alert conditions").

-- One objective of one organization, over one workflow or (workflow_uuid null) the whole
-- organization. `threshold_ms` (LATENCY only) is stored rounded down to a bound of the duration
-- histogram's bins (src/rollups/duration-bins.ts), so that `good` is read from the bins exactly.
create table service_level_objectives (
  id uuid primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null,
  workflow_uuid uuid,
  indicator text not null,
  target float8 not null,
  threshold_ms bigint,
  period_days integer not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index service_level_objectives_by_organization on service_level_objectives (organization_id, name collate "C", id);

-- SLO_BURN: the objective it watches (a rule goes with its objective) and the status of the
-- episode it last announced (TICKET or PAGE; null while OK). EXECUTION_STUCK: its factor and
-- minimum duration.
alter table alert_rules add column service_level_objective_id uuid
  references service_level_objectives (id) on delete cascade;
alter table alert_rules add column slo_status text;
alter table alert_rules add column factor float8;
alter table alert_rules add column min_duration_seconds integer;
create index alert_rules_verdicts_timed on alert_rules (evaluated_at nulls first)
  where enabled and condition in ('SLO_BURN', 'EXECUTION_STUCK');

-- EXECUTION_STUCK: the executions a rule has fired for and not yet resolved, one row each, so
-- that each fires once and resolves once it reaches SUCCESS or FAILURE.
create table stuck_executions (
  rule_id uuid not null references alert_rules (id) on delete cascade,
  execution_uuid uuid not null,
  organization_id uuid not null,
  workflow_uuid uuid not null,
  started_at timestamptz not null,
  fired_at timestamptz not null,
  primary key (rule_id, execution_uuid)
);

-- Executions still running, by organization and start: what EXECUTION_STUCK looks for, without
-- reading the finished ones.
create index executions_running on executions (organization_id, started_at)
  where status in ('TRIGGERED', 'IN_PROGRESS');
