-- wfapi schema, version 4: alert rules and their deliveries (contract section 5, "Push").

-- One rule: one condition of one organization, and one target. The webhook's signing secret is
-- stored encrypted (AES-256-GCM under the server's alert key, see src/alerts/secret-box.ts): the
-- database alone cannot sign. `firing` and `fired_at` are the state of the timer conditions
-- (FAILURE_RATE, NO_EXECUTIONS), changed only under the rule's row lock.
create table alert_rules (
  id uuid primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null,
  condition text not null,
  workflow_uuid uuid,
  classified_status text,
  threshold numeric,
  window_seconds integer,
  min_executions integer,
  for_seconds integer,
  target text not null,
  url text not null,
  secret_box bytea,
  severity text not null,
  enabled boolean not null,
  disabled_reason text,
  firing boolean not null default false,
  fired_at timestamptz,
  evaluated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index alert_rules_by_organization on alert_rules (organization_id, created_at, id);
create index alert_rules_timed on alert_rules (evaluated_at nulls first)
  where enabled and condition in ('FAILURE_RATE', 'NO_EXECUTIONS');

-- The outbox: a delivery is written in the same transaction as the data (or the timer's state
-- change) that caused it, at most once per rule and event (`event_key`: the execution uuid, the
-- error fingerprint, or the firing episode), and sent by the delivery worker. Its id is the
-- webhook-id, the same on every attempt.
create table webhook_deliveries (
  id uuid primary key,
  organization_id uuid not null,
  rule_id uuid not null references alert_rules (id) on delete cascade,
  event_key text not null,
  event_type text not null,
  payload jsonb not null,
  status text not null,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null,
  give_up_at timestamptz not null,
  last_attempt_at timestamptz,
  response_status integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  unique (rule_id, event_key)
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'PENDING';
create index webhook_deliveries_by_organization on webhook_deliveries (organization_id, created_at desc, id);
