-- wfapi schema, version 17: duration histograms count in int4, and the duration rollups fill their pages.
-- Issue 45 asks the rollups to take at most the executions table's space. Three steps, measured on
-- the million loaded through POST /ingest (docs/performance.md, "Storage of the rollups"):
-- - A histogram bin counts the durations of one bucket, workflow, capability and outcome that fall
--   in one 2% band of durations: int4 holds 2,147,483,647 of them, a day's organization-wide bin
--   filled at 24,855 a second. As int4 the table's heap is 13% smaller (677 to 586 MB written
--   in key order), most rows holding one to three counted bins.
-- - Rows of past buckets are seldom written again, so the 20% of each page the table left free for
--   updates (fillfactor 80, migration 0002) stayed empty in most pages: pages are filled now.
-- - The five-minute rows, as the one-minute ones, are kept for recent days only
--   (src/rollups/grains.ts, RECENT_RUNGS_DAYS); the server's rollup upkeep deletes the older ones
--   in the background after the upgrade, as for migration 0010's.

create or replace function wfapi_hist_add(a int4[], b int4[]) returns int4[] language plpgsql immutable as $$
declare
  result int4[] := a;
  i integer;
begin
  if b is null then return a; end if;
  if a is null then return b; end if;
  for i in array_lower(b, 1) .. array_upper(b, 1) loop
    if b[i] <> 0 then
      result[i] := nullif(coalesce(result[i], 0) + b[i], 0);
    end if;
  end loop;
  return result;
end
$$;

create or replace aggregate wfapi_hist_sum(int4[]) (sfunc = wfapi_hist_add, stype = int4[]);

-- The fillfactor first: the rewrite below packs the pages by it.
alter table duration_rollups set (fillfactor = 100);

-- USING keeps the null bins null (migration 0014) and the array's lower bound (its first bin).
alter table duration_rollups alter column duration_bins type int4[] using duration_bins::int4[];

-- The int8 forms stay: migrations 0009 to 0014 name them, and a database upgraded from before
-- those runs them first (test/db/grains-migration.test.ts replays them on today's schema).

analyze duration_rollups;
