-- wfapi schema, version 8: an error group's executions read from the group, newest first.
--
-- `workflowExecutions` with `errorFingerprint` listed the window's executions newest first and
-- probed each for the group (or, in a generic plan, hashed every row the group ever had): its
-- first page cost what the window holds, not what the page shows, and grew with the data's
-- density. Each error row now carries its execution's start (null while the execution has not
-- arrived: only its events' errors are known), kept in step by ingestion as the execution moves,
-- and one index orders a group's rows by it: a page walks the group's newest rows of the window
-- and looks each execution up by (start, uuid).

-- `if not exists`: migration 0003's recount, which runs today's ingestion code, adds it first
-- when a database of version 2 upgrades.
alter table execution_error_groups add column if not exists started_at timestamptz;

update execution_error_groups g set started_at = e.started_at
  from executions e
  where e.organization_id = g.organization_id and e.uuid = g.execution_uuid;

create index execution_error_groups_by_start on execution_error_groups
  (organization_id, fingerprint, started_at, execution_uuid);
-- A window's partial edges read the error rows of the edge by their start (error-groups.rollup.ts),
-- not every execution of the edge.
create index execution_error_groups_by_org_start on execution_error_groups (organization_id, started_at);
-- Its probes by (organization, fingerprint, execution) are served by the primary key
-- (organization, execution, fingerprint, capability).
drop index if exists execution_error_groups_fingerprint;
