import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { durationText } from '../../src/lib/duration.js';
import { ADMIN_TOKEN, adminGql } from '../admin/admin-request.js';
import { runCli } from '../harness/cli.js';
import { eventually } from '../harness/eventually.js';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import { ManualClock } from '../harness/manual-clock.js';
import type { TestServer } from '../harness/server.js';
import { useServer } from '../harness/suite.js';
import { DAY, HOUR } from '../insight/reference.js';
import { CREATE_ALERT_RULE, deliveriesWhen, REDELIVER } from './alerts-request.js';
import { type Receiver, startReceiver } from './receiver.js';

const RETRY_BASE_MS = 100;
const POLL_MS = 20;
/** How late an Alertmanager re-send's retry may come on a loaded machine (that test runs on the real clock). */
const LATE_MS = 2000;
const RESEND_MS = 300;
/** The Alertmanager test's retry horizon, shortened from 24 hours: a re-sent alert outlives it. */
const RESEND_GIVE_UP_MS = 2500;
/** The retry horizon of the test on its own clock: past the hour the backoff stops doubling at. */
const GIVE_UP_MS = 6 * HOUR;

const now = () => new Date().toISOString();

/** A tenant with one workflow and a rule posting to `receiver`, which verifies with the rule's secret. */
async function setup(server: TestServer, db: Database, receiver: Receiver, rule: Record<string, unknown>) {
  receiver.received.length = 0;
  receiver.answers = [];
  const tenant = await createTenant(db);
  const flow = workflow(tenant.organizationId);
  await ingest(db, [flow]);
  const answer = await adminGql(server.url, CREATE_ALERT_RULE, {
    input: { organizationId: tenant.organizationId, name: 'failures', url: receiver.url, ...rule },
  });
  assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
  receiver.secret = answer.body.data.createAlertRule.signingSecret ?? undefined;
  return { organizationId: tenant.organizationId, workflowUuid: flow.uuid as string };
}

interface OutboxRow {
  id: string;
  status: string;
  attempts: number;
  last_attempt_at: Date | null;
  next_attempt_at: Date;
  give_up_at: Date;
}

describe("a delivery that keeps failing, on a clock of the test's", () => {
  // The outbox's due times, retries and horizon follow this clock, an hour ahead of the database's
  // (what the database deems due is due, nothing more): the test moves it to each retry's time, so
  // six hours of retries are checked exactly, in seconds, and a busy machine makes nothing late.
  const clock = new ManualClock(Date.now() + HOUR);
  const ctx = useServer(
    {
      adminToken: ADMIN_TOKEN,
      alerts: { allowPrivate: true, pollMs: POLL_MS, retryBaseMs: RETRY_BASE_MS, giveUpMs: GIVE_UP_MS },
    },
    { now: clock.read },
  );
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });

  /** The delivery once the worker has recorded its `attempts`-th attempt. */
  const recorded = (attempts: number) =>
    eventually(async () => {
      const [row] = await ctx.db.query<OutboxRow>(
        'select id, status, attempts, last_attempt_at, next_attempt_at, give_up_at from webhook_deliveries',
      );
      return row && row.attempts >= attempts ? row : undefined;
    }, `attempt ${attempts} was never recorded`);

  it('is retried with growing delays until its horizon, then FAILED with its attempts and last error, and sent again only by redeliver', async () => {
    const { organizationId, workflowUuid } = await setup(ctx.server, ctx.db, receiver, {
      condition: 'EXECUTION_FAILED',
      target: 'WEBHOOK',
    });
    receiver.answers = Array.from({ length: 1000 }, () => 500);
    await ingest(ctx.db, [execution(organizationId, workflowUuid, { status: 'FAILURE', startedAt: now() })]);
    // Retried for six hours from when it was queued (by the database's clock; give_up_at is that plus a day).
    const [queued] = await ctx.db.query<OutboxRow>('select give_up_at from webhook_deliveries');
    const horizon = queued!.give_up_at.getTime() - DAY + GIVE_UP_MS;

    // Exponential backoff with jitter: the n-th retry waits min(base x 2^(n-1), an hour) x
    // [0.5, 1.5), the last one cut short by the horizon, and the attempt at the horizon gives up.
    const gaps: number[] = [];
    let row: OutboxRow;
    for (let attempts = 1; ; attempts++) {
      await receiver.waitFor(attempts);
      row = await recorded(attempts);
      assert.equal(row.attempts, attempts);
      assert.equal(row.last_attempt_at!.getTime(), clock.now(), 'recorded at the time of the attempt');
      if (row.status !== 'PENDING') break;
      const next = row.next_attempt_at.getTime();
      const gap = next - clock.now();
      const nominal = Math.min(RETRY_BASE_MS * 2 ** (attempts - 1), HOUR);
      gaps.push(gap);
      if (next === horizon) assert.ok(gap <= Math.round(nominal * 1.5), `retry ${attempts}: ${gaps}`);
      else
        assert.ok(
          gap >= Math.round(nominal * 0.5) && gap <= Math.round(nominal * 1.5) && next < horizon,
          `retry ${attempts} after ${gap} ms, not ${nominal} ms x [0.5, 1.5): ${gaps}`,
        );
      clock.advance(gap);
    }
    const attempts = [...receiver.received];
    // The first attempt, the doubling retries up to an hour, the hourly ones and the one at the horizon.
    assert.ok(attempts.length >= 18, `only ${attempts.length} attempts: ${gaps}`);
    assert.ok(
      gaps.some((gap, i) => Math.min(RETRY_BASE_MS * 2 ** i, HOUR) === HOUR && gap >= HOUR / 2),
      `no retry at the hour the backoff stops doubling at: ${gaps}`,
    );
    assert.equal(clock.now(), horizon, 'the last attempt is the one at the horizon');
    const [failed] = await deliveriesWhen(ctx.server.url, organizationId, (d) => d[0]?.status === 'FAILED');
    assert.equal(failed.id, row.id);
    assert.equal(failed.attempts, attempts.length);
    assert.equal(failed.responseStatus, 500);
    assert.equal(
      failed.lastError,
      `the receiver answered 500; gave up after ${attempts.length} attempts over ${durationText(GIVE_UP_MS / 1000)}`,
    );
    for (const attempt of attempts) {
      assert.equal(attempt.headers['webhook-id'], failed.id);
      assert.equal(attempt.verified, true);
    }

    // A day on, it is still given up: none came while the CLI started and listed (seconds, over a
    // hundred polls of the worker at that time).
    clock.advance(DAY);
    const listed = await runCli(['alerts', 'deliveries', '--org', organizationId], {
      NO_COLOR: '1',
      WFAPI_URL: ctx.server.url,
      WFAPI_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(
      listed.stdout,
      new RegExp(`${failed.id}\\s+execution\\.failed\\s+FAILED\\s+${attempts.length}\\s+500\\s.*gave up`),
    );
    assert.equal(receiver.received.length, attempts.length);

    receiver.answers = [];
    const again = await adminGql(ctx.server.url, REDELIVER, { input: { id: failed.id } });
    assert.equal(again.body.data.redeliverWebhook.status, 'PENDING');
    const received = await receiver.waitFor(attempts.length + 1);
    assert.equal(received.at(-1)!.headers['webhook-id'], failed.id);
    const [delivered] = await deliveriesWhen(
      ctx.server.url,
      organizationId,
      (d) => d[0]?.status === 'DELIVERED',
    );
    assert.equal(delivered.attempts, attempts.length + 1);
    assert.equal(delivered.responseStatus, 200);
  });
});

describe('a firing Alertmanager alert', () => {
  const ctx = useServer({
    adminToken: ADMIN_TOKEN,
    alerts: {
      allowPrivate: true,
      pollMs: POLL_MS,
      evaluateMs: 100,
      retryBaseMs: RETRY_BASE_MS,
      giveUpMs: RESEND_GIVE_UP_MS,
      resendMs: RESEND_MS,
    },
  });
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });

  it('keeps re-sending a firing Alertmanager alert that has fired for longer than the horizon, through a failed re-send', async () => {
    // The receiver stands in for Alertmanager here: it answers any path, and the test decides what.
    const { organizationId, workflowUuid } = await setup(ctx.server, ctx.db, receiver, {
      condition: 'FAILURE_RATE',
      threshold: 0.5,
      window: '1h',
      target: 'ALERTMANAGER',
    });
    await ingest(ctx.db, [
      execution(organizationId, workflowUuid, { status: 'FAILURE', startedAt: now() }),
      execution(organizationId, workflowUuid, { status: 'FAILURE', startedAt: now() }),
    ]);
    await receiver.waitFor(1);
    assert.match(receiver.received[0]!.headers['content-type']!, /json/);
    // Firing for longer than a delivery is retried, re-sent all along: posts keep coming past the horizon.
    const first = receiver.received[0]!.at;
    while (receiver.received.at(-1)!.at < first + RESEND_GIVE_UP_MS + RESEND_MS) {
      await receiver.waitFor(receiver.received.length + 1, RESEND_MS * 1.5 + 5000);
    }
    const sent = receiver.received.length;
    assert.ok(sent >= 3, `posted ${sent} times in ${RESEND_GIVE_UP_MS + RESEND_MS} ms`);
    // Alertmanager is down for a moment: the next re-send fails twice, then goes through.
    receiver.answers = [500, 500];
    const [failing, retried] = (await receiver.waitFor(sent + 3, 5000)).slice(sent);
    // Retried as a new post (base x [0.5, 1.5)), not with the backoff its earlier posts add up to.
    const retryMs = retried!.at - failing!.at;
    assert.ok(retryMs <= RETRY_BASE_MS * 1.5 + LATE_MS, `a failed re-send was retried after ${retryMs} ms`);
    const [firing] = await deliveriesWhen(
      ctx.server.url,
      organizationId,
      (d) => d[0]?.status === 'DELIVERED',
    );
    assert.equal(firing.type, 'failure_rate.firing');
    // And it goes on being re-sent.
    await receiver.waitFor(sent + 4, 5000);
  });
});
