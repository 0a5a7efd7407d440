-- wfapi schema, version 7: log search bounded by its window in the index itself.
--
-- The trigram index of version 2 (execution_logs_message_trgm) finds a term's lines over the
-- whole month partition; the window was applied to each candidate afterwards, so a search over
-- 24 hours read and rechecked every matching line of the month (its cost grew with the month,
-- not with the window). This index keys each line by its day as well as its trigrams: a search
-- asks for the days of its window, and GIN intersects the day's entries with the term's trigram
-- entries, skipping the lines of other days.

-- int4 keys in a GIN index (the day, beside the trigrams of gin_trgm_ops).
create extension if not exists btree_gin;

-- A line's day: whole days since 1970-01-01 UTC (rounded toward zero: day 0 spans 1969-12-31
-- and 1970-01-01, which costs nothing but a wider day). IMMUTABLE so that it can key an index:
-- an instant minus a fixed instant is an interval whatever the time zone.
create function wfapi_log_day(timestamptz) returns integer
  language sql immutable parallel safe
  as $$ select extract(day from $1 - timestamptz '1970-01-01 00:00:00+00')::integer $$;

create index execution_logs_day_message on execution_logs
  using gin (wfapi_log_day(timestamp), message gin_trgm_ops);
drop index execution_logs_message_trgm;
