import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadMigrations, splitStatements } from '../../src/db/migrate.js';
import { countingDatabase } from '../harness/counting-database.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { createTenant, execution, ingest, log, type Tenant, workflow } from '../harness/fixtures.js';
import { startServer, type TestServer } from '../harness/server.js';
import { DAY, HOUR, iso, MINUTE, SECOND } from './reference.js';

const SEARCH = `query ($input: SearchExecutionLogsInput!) { searchExecutionLogs(input: $input) {
  count countIsExact data { workflowExecutionUUID workflowUUID workflowName nodeID timestamp message } } }`;

/** A day no other test writes to, and a window over two of its days that the request names. */
const DAY_START = Math.floor(Date.now() / DAY) * DAY - 5 * DAY;
const WINDOW = { from: iso(DAY_START + HOUR + 13 * SECOND), to: iso(DAY_START + 30 * HOUR + 7 * SECOND) };

describe('log search answers a server keeps while the days of their lines are unchanged', () => {
  let database: TestDatabase;
  let cached: TestServer;
  let uncached: TestServer;
  let counter: ReturnType<typeof countingDatabase>;

  before(async () => {
    database = await openTestDatabase();
    counter = countingDatabase(database.db);
    cached = await startServer(counter.db, { authCacheMs: 60_000, alerts: { worker: false } });
    uncached = await startServer(database.db, { limits: { rollupCacheMb: 0 } });
  });
  after(async () => {
    await cached?.close();
    await uncached?.close();
    await database?.close();
  });

  /** A tenant with a workflow and `n` executions, each with a matching line and one that does not match. */
  async function tenantWithLines(n: number) {
    const t = await createTenant(database.db);
    const flow = workflow(t.organizationId, { name: 'settlement' });
    const runs = Array.from({ length: n }, (_, i) =>
      execution(t.organizationId, flow.uuid as string, {
        startedAt: iso(DAY_START + 2 * HOUR + i * 47 * MINUTE),
      }),
    );
    await ingest(database.db, [
      flow,
      ...runs,
      ...runs.flatMap((run, i) => [
        log(t.organizationId, run.uuid as string, {
          message: `transfer ${i} Reverted by the chain`,
          timestamp: iso(DAY_START + 2 * HOUR + i * 47 * MINUTE + 3 * SECOND),
        }),
        log(t.organizationId, run.uuid as string, {
          message: `transfer ${i} settled`,
          timestamp: iso(DAY_START + 2 * HOUR + i * 47 * MINUTE + 4 * SECOND),
        }),
      ]),
    ]);
    return { t, flow };
  }

  type Answer = { count: number; countIsExact: boolean; data: Array<Record<string, string>> };
  const ask = async (server: TestServer, t: Tenant, input: Record<string, unknown>): Promise<Answer> => {
    const response = await server.gql(t.key, SEARCH, { input });
    assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
    return response.body.data.searchExecutionLogs;
  };

  /** The cached server's answer, which must be the uncached server's, and the statements it sent. */
  async function askBoth(t: Tenant, input: Record<string, unknown>) {
    counter.take();
    const answer = await ask(cached, t, input);
    const statements = counter.take().filter((text) => !/api_keys/.test(text));
    assert.deepEqual(answer, await ask(uncached, t, input));
    return { answer, statements };
  }

  /** Whether the statements searched the lines (the trigram match), rather than reading kept matches. */
  const searched = (statements: readonly string[]) => statements.some((text) => /ilike/.test(text));

  it('answers a window the request named from its kept matches from the third ask on: the versions and the page lines only', async () => {
    const { t } = await tenantWithLines(30);
    const input = { query: 'reverted', ...WINDOW, page: { size: 10 } };
    const asks = [];
    for (let i = 0; i < 3; i++) asks.push(await askBoth(t, input));
    // Lines from 02:00:03 every 47 minutes: 30 of them, all inside the window (the last at 24:43).
    assert.deepEqual(
      asks.map(({ answer }) => [answer.count, answer.data.length]),
      [
        [30, 10],
        [30, 10],
        [30, 10],
      ],
    );
    assert.deepEqual(
      asks.map(({ statements }) => searched(statements)),
      [true, true, false],
    );
    const third = asks[2]!.statements;
    assert.equal(third.length, 2, third.join('\n---\n'));
    assert.ok(third.some((text) => /rollup_versions/.test(text)));
    assert.ok(third.some((text) => /unnest\(/.test(text) && /execution_logs/.test(text)));
    // Every page of the search comes from the same kept matches.
    for (const number of [1, 2]) {
      const { answer, statements } = await askBoth(t, { ...input, page: { number, size: 10 } });
      assert.equal(answer.data.length, 10);
      assert.equal(searched(statements), false, `page ${number}`);
    }
    // So does the count alone.
    counter.take();
    const count = await cached.gql(
      t.key,
      'query ($input: SearchExecutionLogsInput!) { searchExecutionLogs(input: $input) { count } }',
      { input },
    );
    assert.equal(count.body.data.searchExecutionLogs.count, 30);
    assert.equal(searched(counter.take()), false);
  });

  it('keeps nothing for a window that ends now', async () => {
    const { t } = await tenantWithLines(3);
    const input = { query: 'reverted', from: WINDOW.from };
    for (let i = 0; i < 3; i++) {
      const { answer, statements } = await askBoth(t, input);
      assert.equal(answer.count, 3);
      assert.equal(searched(statements), true, `ask ${i + 1}`);
    }
  });

  it('follows ingestion: a new line, a line stored before its execution, an execution that moves, a renamed workflow, a workflow that arrives', async () => {
    const { t, flow } = await tenantWithLines(4);
    const input = { query: 'reverted', ...WINDOW };
    const byWorkflow = { ...input, workflowUUID: flow.uuid as string };
    /** Asks both searches until each is kept, then checks that the next ask is kept as well. */
    const keptAnswers = async () => {
      for (let i = 0; i < 2; i++) for (const asked of [input, byWorkflow]) await askBoth(t, asked);
      const answers = [];
      for (const asked of [input, byWorkflow]) {
        const { answer, statements } = await askBoth(t, asked);
        assert.equal(searched(statements), false);
        answers.push(answer);
      }
      return answers;
    };
    const counts = async () => {
      const answers = [];
      for (const asked of [input, byWorkflow]) answers.push((await askBoth(t, asked)).answer);
      return answers.map((answer) => answer.count);
    };
    /** A line of `run` at `at`. */
    const line = (run: Record<string, unknown>, message: string, at: number) =>
      log(t.organizationId, run.uuid as string, { message, timestamp: iso(at) });
    await keptAnswers();

    // A new matching line of a stored execution.
    const run = execution(t.organizationId, flow.uuid as string, { startedAt: iso(DAY_START + 20 * HOUR) });
    await ingest(database.db, [run, line(run, 'reverted again', DAY_START + 20 * HOUR + SECOND)]);
    assert.deepEqual(await counts(), [5, 5]);
    await keptAnswers();
    await ingest(database.db, [line(run, 'reverted once more', DAY_START + 26 * HOUR)]);
    assert.deepEqual(await counts(), [6, 6]);

    // A line whose execution is not stored is not searchable, until its execution arrives, in a
    // batch with no line at all. It starts the day before the window: no rollup of the window's
    // days changes with it, or when it moves below.
    const late = execution(t.organizationId, flow.uuid as string, { startedAt: iso(DAY_START - 2 * HOUR) });
    await ingest(database.db, [line(late, 'reverted early', DAY_START + 25 * HOUR)]);
    assert.deepEqual(await counts(), [6, 6]);
    await keptAnswers();
    await ingest(database.db, [late]);
    assert.deepEqual(await counts(), [7, 7]);

    // An execution that moves to another workflow takes its lines along.
    const other = workflow(t.organizationId, { name: 'payouts' });
    await ingest(database.db, [other]);
    await keptAnswers();
    await ingest(database.db, [{ ...late, workflowUUID: other.uuid }]);
    assert.deepEqual(await counts(), [7, 6]);

    // A renamed workflow is named anew in a kept answer's page.
    const [before] = await keptAnswers();
    assert.ok(before!.data.every((match) => match.workflowName !== 'settlement v2'));
    await ingest(database.db, [{ ...flow, name: 'settlement v2' }]);
    const { answer: renamed, statements } = await askBoth(t, input);
    assert.equal(searched(statements), false);
    assert.ok(renamed.data.some((match) => match.workflowName === 'settlement v2'));

    // Lines of an execution whose workflow is not stored show once the workflow arrives.
    const unseen = workflow(t.organizationId, { name: 'unseen' });
    const orphanRun = execution(t.organizationId, unseen.uuid as string, {
      startedAt: iso(DAY_START + 3 * HOUR),
    });
    await ingest(database.db, [orphanRun, line(orphanRun, 'reverted unseen', DAY_START + 3 * HOUR)]);
    assert.deepEqual(await counts(), [7, 6]);
    await keptAnswers();
    await ingest(database.db, [unseen]);
    assert.deepEqual(await counts(), [8, 6]);
  });

  it('notes, on upgrade, the days of lines already stored without their execution', async () => {
    const t = await createTenant(database.db);
    const executionUuid = randomUUID();
    await ingest(database.db, [
      log(t.organizationId, executionUuid, { message: 'early', timestamp: iso(DAY_START + 3 * HOUR) }),
      log(t.organizationId, executionUuid, { message: 'later', timestamp: iso(DAY_START + 27 * HOUR) }),
    ]);
    const days = async () =>
      (
        await database.db.query<{ day: Date }>(
          'select day from orphan_log_days where organization_id = $1 order by day',
          [t.organizationId],
        )
      ).map((row) => row.day.getTime());
    assert.deepEqual(await days(), [DAY_START, DAY_START + DAY]);
    await database.db.query('delete from orphan_log_days where organization_id = $1', [t.organizationId]);
    const migration = (await loadMigrations()).find((m) => m.version.startsWith('0016'))!;
    for (const statement of splitStatements(migration.sql!)) await database.db.query(statement);
    assert.deepEqual(await days(), [DAY_START, DAY_START + DAY]);
  });
});
