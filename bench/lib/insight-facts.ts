/**
 * What the insight queries of the mix need from a dataset: a term found in about 1 log line of
 * 1,000 over the last 24 hours (the log search target is stated for such a term), the most
 * frequent error group, and a capability. Read from the bench database once per run.
 */
import pg from 'pg';
import type { InsightFacts } from '../queries.js';

/** Texts the simulator writes into some log lines (failure messages), from rare to common. */
const CANDIDATE_TERMS = [
  'nonce too low',
  'invalid payload',
  'memory limit',
  'cannot unmarshal',
  'reverted without a reason',
  'transaction underpriced',
  'insufficient funds',
  'quorum unavailable',
  'consensus not reached',
  'deadline exceeded',
  'index out of range',
  'Too Many Requests',
  'execution reverted',
  'timed out after',
];

const DAY = 86_400_000;

export async function insightFacts(databaseUrl: string, now: Date): Promise<InsightFacts> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const from = new Date(now.getTime() - DAY);
    const counted = await client.query<Record<string, string>>(
      `select count(*)::text as total,
              ${CANDIDATE_TERMS.map((_term, i) => `count(*) filter (where message ilike $${i + 3})::text as t${i}`).join(', ')}
       from execution_logs where timestamp >= $1 and timestamp <= $2`,
      [from, now, ...CANDIDATE_TERMS.map((term) => `%${term}%`)],
    );
    const row = counted.rows[0]!;
    const total = Number(row.total);
    const shares = CANDIDATE_TERMS.map((term, i) => ({
      term,
      share: Number(row[`t${i}`]) / Math.max(1, total),
    }));
    // The term whose share of the window's lines is nearest 1 in 1,000 (on a log scale).
    const best = shares
      .filter((s) => s.share > 0)
      .sort((a, b) => Math.abs(Math.log(a.share * 1000)) - Math.abs(Math.log(b.share * 1000)))[0] ?? {
      term: CANDIDATE_TERMS[0]!,
      share: 0,
    };
    const group = await client.query<{ fingerprint: string }>(
      `select fingerprint from error_group_rollups where grain = 86400 and capability_id = '*'
       group by fingerprint order by sum(occurrences) desc limit 1`,
    );
    const capability = await client.query<{ capability_id: string }>(
      `select capability_id from duration_rollups where grain = 86400 and capability_id <> ''
       group by capability_id order by sum(item_count) desc limit 1`,
    );
    return {
      logTerm: best.term,
      logTermShare: best.share,
      errorFingerprint: group.rows[0]?.fingerprint ?? '0000000000000000',
      capabilityId: capability.rows[0]?.capability_id ?? 'none',
    };
  } finally {
    await client.end();
  }
}
