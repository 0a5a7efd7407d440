-- wfapi schema, version 3: every rollup recounted from the raw rows.
--
-- Version 2 added rollups that a version-1 database has no history for. Recounting them is the
-- work of the code that keeps rollups in step on ingest, as it is today (it writes the tables as
-- the latest version has them), so it is not frozen here: this migration only asks for it, when
-- there are rows to count, and the runner performs it in the same transaction once every later
-- migration has been applied (src/db/migrate.ts, `recountRollups` in src/ingest/recount.ts).
create table rollup_recounts (
  requested_by text primary key,
  requested_at timestamptz not null default now()
);

insert into rollup_recounts (requested_by)
  select '0003' where exists (select 1 from executions) or exists (select 1 from execution_events);
