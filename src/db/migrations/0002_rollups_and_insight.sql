-- wfapi schema, version 2: one home for rollups, and the insight aggregates (contract section 5).

-- Histograms are int8[] whose lower bound is the first bin's index; adding two adds per bin.
create function wfapi_hist_add(a int8[], b int8[]) returns int8[] language plpgsql immutable as $$
declare
  result int8[] := a;
  i integer;
begin
  if b is null then return a; end if;
  if a is null then return b; end if;
  for i in array_lower(b, 1) .. array_upper(b, 1) loop
    result[i] := coalesce(result[i], 0) + coalesce(b[i], 0);
  end loop;
  return result;
end
$$;

create aggregate wfapi_hist_sum(int8[]) (sfunc = wfapi_hist_add, stype = int8[]);

-- All-time totals become the all-time grain (0, bucket at the epoch) of execution_rollups, so
-- that success and failure are counted one way, by status rows. The next migration recounts
-- every rollup, those included, from the raw rows.
drop table workflow_rollups;

-- Rollup rows are updated in place by every batch: room on their pages keeps those updates HOT
-- (no new index entries). For execution_rollups this applies to pages written from now on.
alter table execution_rollups set (fillfactor = 80);

-- Each execution's error groups: its own errors (capability_id '') and its events' (the
-- capability). Kept in step by ingestion; answers "which executions had this group".
create table execution_error_groups (
  organization_id uuid not null,
  execution_uuid uuid not null,
  fingerprint text not null,
  capability_id text not null,
  occurrences bigint not null,
  primary key (organization_id, execution_uuid, fingerprint, capability_id)
);
create index execution_error_groups_fingerprint on execution_error_groups (organization_id, fingerprint, execution_uuid);

-- One row a group: its pattern, the latest message, and when it was first and last seen.
create table error_groups (
  organization_id uuid not null,
  fingerprint text not null,
  pattern text not null,
  sample_message text not null,
  first_seen_at timestamptz not null,
  last_seen_at timestamptz not null,
  primary key (organization_id, fingerprint)
);

create table error_group_rollups (
  organization_id uuid not null,
  grain integer not null,
  bucket_start timestamptz not null,
  workflow_uuid uuid not null,
  fingerprint text not null,
  capability_id text not null,
  occurrences bigint not null default 0,
  execution_count bigint not null default 0,
  primary key (organization_id, grain, bucket_start, workflow_uuid, fingerprint, capability_id)
) with (fillfactor = 80);
-- A group's first and last sighting are found through its rows at any level ('*'), from the day
-- down to the 5-minute bucket and then the raw rows of that bucket.
create index error_group_rollups_by_group on error_group_rollups (organization_id, fingerprint, grain, bucket_start)
  where capability_id = '*';

create table duration_rollups (
  organization_id uuid not null,
  grain integer not null,
  bucket_start timestamptz not null,
  workflow_uuid uuid not null,
  capability_id text not null,
  status text not null,
  item_count bigint not null default 0,
  finished_count bigint not null default 0,
  duration_sum_ms bigint not null default 0,
  duration_min_ms bigint,
  duration_max_ms bigint,
  duration_bins bigint[],
  primary key (organization_id, grain, bucket_start, workflow_uuid, capability_id, status)
) with (fillfactor = 80);

-- Executions with events stored before them: their events count once the execution arrives.
create table orphan_event_executions (
  organization_id uuid not null,
  execution_uuid uuid not null,
  primary key (organization_id, execution_uuid)
);

-- Window edges of capability statistics read events by start.
create index execution_events_org_started on execution_events (organization_id, started_at);

-- Log search: case-insensitive substring through trigrams, bounded by time.
create extension if not exists pg_trgm;
create index execution_logs_message_trgm on execution_logs using gin (message gin_trgm_ops);
create index execution_logs_org_timestamp on execution_logs (organization_id, timestamp);

-- Freshness: when each organization's latest ingestion committed (extensions.dataAsOf).
create table ingest_watermarks (
  organization_id uuid primary key,
  data_as_of timestamptz not null
);
