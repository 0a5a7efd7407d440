-- wfapi schema, version 9: the duration rollups gain two grains, 15 minutes and 6 hours
-- (src/rollups/grains.ts), so that a window is covered by about half the histogram rows it took.
--
-- Each new row is the sum of the finer rows its bucket holds: a 15-minute row of the 5-minute
-- rows, a 6-hour row of the hourly rows, each measure combined as ingestion combines it (counts
-- add, extremes keep the extreme, histograms add bin by bin). Every item belongs to one bucket of
-- each grain, so the sums are exact. The rows are deleted first: migration 0003's recount, which
-- runs today's ingestion code, already writes them when a database of version 2 upgrades, and
-- deriving them again gives the same rows.

delete from duration_rollups where grain in (900, 21600);

insert into duration_rollups
  (organization_id, grain, bucket_start, workflow_uuid, capability_id, status, item_count, finished_count,
   duration_sum_ms, duration_min_ms, duration_max_ms, duration_bins)
select organization_id, g.grain,
       date_bin(make_interval(secs => g.grain), bucket_start, timestamptz 'epoch') as bucket,
       workflow_uuid, capability_id, status, sum(item_count), sum(finished_count),
       sum(duration_sum_ms), min(duration_min_ms), max(duration_max_ms), wfapi_hist_sum(duration_bins)
from duration_rollups r
join (values (900, 300), (21600, 3600)) as g (grain, source) on r.grain = g.source
group by organization_id, g.grain, bucket, workflow_uuid, capability_id, status;
