/**
 * Log search reads one day's trigram index per day of its window, instead of the month's.
 *
 * Version 7 keyed each line by its day beside its trigrams (one GIN index over both columns), so
 * that a search could ask for its window's days. The planner does not ask: the day's entry holds
 * every line of the day, and intersecting with it is costed above rechecking the term's matches,
 * so it reads the term's matches of the whole month partition and filters them by time. At ten
 * million executions a month a 24-hour search then rechecked thirty days of matches to keep one
 * (p99 620 ms at 16 connections, issue 45).
 *
 * Each month partition of execution_logs gets instead one trigram index per day of its month,
 * partial to that day's rows (`<partition>_dDD`, `timestamp >= midnight and timestamp < next
 * midnight`, UTC). A search names each day of its window with those same bounds, so the planner
 * proves which index each day needs and reads that day's matches alone; the partitions outside
 * the window are pruned when it plans. An inserted line goes into its day's index only (the
 * others' conditions are two comparisons each). The DEFAULT partition, which holds rows only
 * until partition upkeep gives their month a partition, keeps one whole trigram index. The
 * version 7 index is dropped; partition upkeep (src/db/partitions.ts) makes the day indexes of the
 * partitions it creates from now on.
 */

import type { Transaction } from '../database.js';

// Frozen as version 15 has them (a migration never imports live code): the table, its
// partitions' names, and the index of a day (src/db/partitions.ts, dayIndexes).
const TABLE = 'execution_logs';
const DAY_MS = 86_400_000;
const NAMED_MONTH = /_p(\d{4})(\d{2})$/;

const dayLiteral = (day: number): string => {
  const d = new Date(day * DAY_MS);
  const [month, date] = [d.getUTCMonth() + 1, d.getUTCDate()].map((n) => String(n).padStart(2, '0'));
  return `${d.getUTCFullYear()}-${month}-${date} 00:00:00+00`;
};

export async function up(tx: Transaction): Promise<void> {
  const partitions = await tx.query<{ name: string }>(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = '${TABLE}'::regclass`,
  );
  for (const { name } of partitions) {
    const match = NAMED_MONTH.exec(name);
    if (!match) continue;
    const year = Number(match[1]);
    const month = Number(match[2]) - 1;
    const first = Date.UTC(year, month, 1) / DAY_MS;
    const days = (Date.UTC(year, month + 1, 1) - Date.UTC(year, month, 1)) / DAY_MS;
    for (let i = 0; i < days; i++) {
      const day = first + i;
      await tx.query(
        `create index if not exists ${name}_d${String(i + 1).padStart(2, '0')} on ${name}
         using gin (message gin_trgm_ops)
         where timestamp >= '${dayLiteral(day)}' and timestamp < '${dayLiteral(day + 1)}'`,
      );
    }
  }
  await tx.query(
    `create index if not exists ${TABLE}_default_message on ${TABLE}_default using gin (message gin_trgm_ops)`,
  );
  await tx.query('drop index if exists execution_logs_day_message');
}
