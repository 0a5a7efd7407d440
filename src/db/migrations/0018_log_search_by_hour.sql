-- wfapi schema, version 18: log search bounded by the hours of its window, not only its days.
--
-- Version 7 keyed each line's trigrams by its day, so a search read the trigram matches of every
-- day its window touched: a 24-hour window ending at 23:00 read the day before in full for the
-- one hour it covers, and a one-hour window read a whole day. This index keys each line by its
-- day and by its hour (two entries of one array, which a search asks for with `&&`): a search
-- names the days it covers whole and the hours of the days it covers in part, so what it reads
-- follows its window to within an hour at each end. The hours are kept apart from the days by
-- adding 10^10 to them (hours since 1970 stay within +-2.6 * 10^9 over PostgreSQL's range of
-- instants). Floors, not truncation toward zero: an hour or day before 1970 is a whole one.
-- A line gets one more index entry than before (beside its trigrams). The epoch is taken as a
-- double (date_part), not as numeric (extract): instants are whole milliseconds in years 1 to 9999,
-- which a double holds to within 30 microseconds, and numeric arithmetic cost the embedded
-- database about 16 microseconds a stored line (a 200 MB upload of re-sent lines 25% slower).
create function wfapi_log_spans(timestamptz) returns bigint[]
  language sql immutable parallel safe
  as $$ select array[
    floor(date_part('epoch', $1 - timestamptz '1970-01-01 00:00:00+00') / 86400)::bigint,
    10000000000 + floor(date_part('epoch', $1 - timestamptz '1970-01-01 00:00:00+00') / 3600)::bigint
  ] $$;

create index execution_logs_spans_message on execution_logs
  using gin (wfapi_log_spans(timestamp), message gin_trgm_ops);
drop index execution_logs_day_message;
