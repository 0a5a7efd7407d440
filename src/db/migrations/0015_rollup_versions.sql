-- wfapi schema, version 15: a counter per organization and day of rollup buckets, raised by every
-- ingestion that changes a rollup row of that day (in the same transaction). A reader that kept a
-- window's answer (src/rollups/window-cache.ts) uses it again only while the counters of the
-- window's days, and the organization's workflows, are what they were when it read the answer.
-- No row: the day's rollups have not changed since the table was made (counter 0), which holds for
-- every reader started after it was made, since a reader keeps nothing across restarts.
create table if not exists rollup_versions (
  organization_id uuid not null,
  day timestamptz not null,
  version bigint not null,
  primary key (organization_id, day)
);
