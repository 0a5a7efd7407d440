-- The live stream's change feed (GET /events, contract section 5): one row per execution that
-- ingestion inserts or actually changes, written in the same transaction as the execution.
-- `id` is the stream's cursor (the SSE event id). Within one organization ids are allocated and
-- committed in the same order, because ingestion holds the organization's transaction-level
-- advisory lock from before the first write until commit (see src/ingest/ingest.store.ts): a
-- later writer of the organization allocates its ids only after the earlier one committed. The
-- sequence keeps PostgreSQL's default cache of 1, so ids grow in allocation order across sessions.
-- Rows older than 48 hours are pruned (src/events/change-feed.store.ts). No foreign key onto
-- executions: that table may be partitioned.
create table execution_changes (
  id bigint generated always as identity primary key,
  organization_id uuid not null,
  execution_uuid uuid not null,
  changed_at timestamptz not null default now()
);
create index execution_changes_org_id on execution_changes (organization_id, id);
