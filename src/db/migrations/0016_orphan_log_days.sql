-- wfapi schema, version 16: the days of log lines stored before their execution.
-- A log line is searchable once its execution is stored (and the execution's workflow). A kept
-- search answer (src/modules/log-search) is checked against the rollup versions of its window's
-- days (migration 0015), which ingestion of log lines now raises for the lines' days. A line that
-- arrives before its execution becomes visible when the execution arrives, in a batch that may
-- hold no line of that day: its execution and day are noted here, and that batch raises the day.
create table if not exists orphan_log_days (
  organization_id uuid not null,
  execution_uuid uuid not null,
  day timestamptz not null,
  primary key (organization_id, execution_uuid, day)
);

-- The lines already stored without their execution. Days are UTC day starts, as rollup_versions
-- keeps them.
insert into orphan_log_days (organization_id, execution_uuid, day)
select distinct l.organization_id, l.workflow_execution_uuid,
  timestamptz '1970-01-01 00:00:00+00' + floor(extract(epoch from l.timestamp) / 86400) * interval '1 day'
from execution_logs l
where not exists (
  select 1 from executions e where e.organization_id = l.organization_id and e.uuid = l.workflow_execution_uuid
)
on conflict do nothing;
