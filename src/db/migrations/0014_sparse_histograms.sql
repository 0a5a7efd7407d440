-- wfapi schema, version 14: a histogram's empty bins are stored as nulls.
-- A duration histogram is an int8[] from its first bin to its last (src/rollups/duration-bins.ts),
-- and most of its bins are empty: on 200,000 executions loaded through ingestion a row holds 18
-- bins at the one-minute grain and 85 at the hour, of which 1.7 and 15 have a count. An array's
-- null element takes one bit of its null bitmap where a zero takes eight bytes, so storing the
-- empty bins as nulls halves the table's heap (1,083 to 564 MB there). Every reader already takes
-- a null bin for an empty one: `array_to_string(h, ',', '0')`, `unnest(h) ... where n > 0`, `sum`.

-- Adding a histogram skips its empty bins (null, or zero as older rows have them) and leaves a bin
-- whose count comes back to zero empty.
create or replace function wfapi_hist_add(a int8[], b int8[]) returns int8[] language plpgsql immutable as $$
declare
  result int8[] := a;
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

-- The stored histograms rewritten: added to an empty array, a histogram keeps its non-empty bins
-- only, from the first to the last, with nulls between (none at all: null, as ingestion writes
-- it). Changing the column's type with USING rewrites the table and its index in one pass, so the
-- space is returned, where an UPDATE would leave a dead copy of every row.
alter table duration_rollups
  alter column duration_bins type int8[] using nullif(wfapi_hist_add('{}', duration_bins), '{}');

-- The new column's statistics (its width, which plans weigh) go with the old one: gathered again.
analyze duration_rollups;
