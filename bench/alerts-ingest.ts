/**
 * Ingestion with 100 active alert rules beside ingestion without them, on one database:
 * `node --import tsx bench/alerts-ingest.ts [--db pglite|postgres] [--batches 20] [--size 2000]`.
 * Each round ingests the same shape of batches (5% failures, new error messages) into two fresh
 * organizations, one with 100 rules (25 per condition; EXECUTION_FAILED and NEW_ERROR_GROUP ones
 * each scoped to a workflow) and one without, alternating so that drift hits both alike. Only
 * ingestion is timed: the rules' deliveries are written in its transactions (the outbox), the
 * worker that sends them is not running.
 */

import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createOrganization } from '../src/admin/admin.service.js';
import { insertRule } from '../src/alerts/alerts.store.js';
import { INGEST_OBSERVERS } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite.js';
import { openPostgres } from '../src/db/postgres.js';
import { ingestBatch } from '../src/ingest/ingest.store.js';
import { parseRecord } from '../src/ingest/records.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'pglite' },
    batches: { type: 'string', default: '20' },
    size: { type: 'string', default: '2000' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const BATCHES = Number(args.batches);
const SIZE = Number(args.size);
const WORKFLOWS = 25;

async function open(): Promise<{ db: Database; drop: () => Promise<void> }> {
  if (args.db !== 'postgres') return { db: await openPglite('memory://'), drop: async () => {} };
  const name = `wfapi_bench_alerts_${process.pid}`;
  const admin = new pg.Client({ connectionString: args['pg-url'] });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(args['pg-url']!);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), { poolSize: 4, statementTimeoutMs: 600_000 });
  return {
    db,
    drop: async () => {
      await db.close();
      const client = new pg.Client({ connectionString: args['pg-url'] });
      await client.connect();
      await client.query(`drop database ${name} with (force)`);
      await client.end();
    },
  };
}

async function tenant(
  db: Database,
  rules: boolean,
): Promise<{ organizationId: string; workflows: string[] }> {
  const organizationId = (await createOrganization(db, { displayName: rules ? 'rules' : 'none' })).id;
  const workflows = Array.from({ length: WORKFLOWS }, () => randomUUID());
  await ingestBatch(
    db,
    workflows.map((uuid, i) => ({
      line: i + 1,
      record: parseRecord({
        type: 'workflow',
        organizationId,
        uuid,
        workflowId: `0x${uuid.replace(/-/g, '')}`,
        name: `flow-${i}`,
        ownerAddress: '0x00000000000000000000000000000000000000aa',
        status: 'ACTIVE',
        registeredAt: '2026-01-01T00:00:00Z',
        workflowSource: 'bench',
      }),
    })),
    { observers: INGEST_OBSERVERS },
  );
  if (rules) {
    const conditions = ['EXECUTION_FAILED', 'NEW_ERROR_GROUP', 'FAILURE_RATE', 'NO_EXECUTIONS'] as const;
    for (const [c, condition] of conditions.entries()) {
      for (let i = 0; i < 25; i++) {
        await insertRule(db, {
          id: randomUUID(),
          organization_id: organizationId,
          name: `${condition}-${i}`,
          condition,
          workflow_uuid: workflows[(i + c) % WORKFLOWS]!,
          classified_status: null,
          threshold: condition === 'FAILURE_RATE' ? '0.5' : null,
          window_seconds: condition === 'FAILURE_RATE' ? 900 : null,
          min_executions: condition === 'FAILURE_RATE' ? 1 : null,
          for_seconds: condition === 'NO_EXECUTIONS' ? 3600 : null,
          target: 'WEBHOOK',
          url: 'https://receiver.example/hooks',
          secret_box: null,
          severity: 'warning',
          enabled: true,
          disabled_reason: null,
          metric: null,
          sensitivity: null,
          service_level_objective_id: null,
          factor: null,
          min_duration_seconds: null,
        });
      }
    }
  }
  return { organizationId, workflows };
}

function batch(organizationId: string, workflows: string[], round: number) {
  const now = Date.now();
  return Array.from({ length: SIZE }, (_, i) => {
    const failed = i % 20 === 0;
    const uuid = randomUUID();
    return {
      line: i + 1,
      record: parseRecord({
        type: 'execution',
        organizationId,
        uuid,
        id: `0x${uuid.replace(/-/g, '')}`,
        workflowUUID: workflows[i % WORKFLOWS],
        status: failed ? 'FAILURE' : 'SUCCESS',
        startedAt: new Date(now - i).toISOString(),
        finishedAt: new Date(now).toISOString(),
        errors: failed ? [{ error: `failure kind ${round}-${i % 7} at step`, count: 1 }] : undefined,
      }),
    };
  });
}

const { db, drop } = await open();
try {
  await migrate(db);
  const without = await tenant(db, false);
  const withRules = await tenant(db, true);
  const ms = { without: 0, with: 0 };
  for (let round = 0; round < BATCHES; round++) {
    for (const [name, t] of round % 2 === 0
      ? ([
          ['without', without],
          ['with', withRules],
        ] as const)
      : ([
          ['with', withRules],
          ['without', without],
        ] as const)) {
      const records = batch(t.organizationId, t.workflows, round);
      const started = performance.now();
      await ingestBatch(db, records, { observers: INGEST_OBSERVERS });
      ms[name] += performance.now() - started;
    }
  }
  const executions = BATCHES * SIZE;
  const [deliveries] = await db.query<{ n: number }>('select count(*)::int as n from webhook_deliveries');
  console.log(`${args.db}: ${executions} executions each, batches of ${SIZE}`);
  console.log(`  without rules: ${Math.round(executions / (ms.without / 1000))} executions/s`);
  console.log(
    `  100 rules:     ${Math.round(executions / (ms.with / 1000))} executions/s (${deliveries!.n} deliveries queued)`,
  );
  console.log(`  with / without time: ${(ms.with / ms.without).toFixed(3)}`);
} finally {
  await drop();
}
