import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, adminGql } from '../admin/admin-request.js';
import { runCli } from '../harness/cli.js';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { CREATE_ALERT_RULE, deliveriesWhen, REDELIVER } from './alerts-request.js';
import { type Receiver, startReceiver } from './receiver.js';

/** The retry horizon, shortened from 24 hours so that a delivery is given up within the test. */
const GIVE_UP_MS = 2500;
const RETRY_BASE_MS = 100;
const POLL_MS = 20;
/** A due delivery is claimed at the next poll; an attempt and its record take some ms more (more on a busy machine). */
const SLACK_MS = POLL_MS + 300;
/**
 * How late an attempt may come on a loaded machine: generous, since lateness is the machine's, not
 * the schedule's. The schedule itself is retryDelay's, tested exactly in retry-delay.test.ts; here
 * the lower bounds, which load cannot break, show the delays doubling.
 */
const LATE_MS = 2000;
const RESEND_MS = 300;

const now = () => new Date().toISOString();

describe('a delivery that keeps failing', () => {
  const ctx = useServer({
    adminToken: ADMIN_TOKEN,
    alerts: {
      allowPrivate: true,
      pollMs: POLL_MS,
      evaluateMs: 100,
      retryBaseMs: RETRY_BASE_MS,
      giveUpMs: GIVE_UP_MS,
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

  async function setup(rule: Record<string, unknown>) {
    receiver.received.length = 0;
    receiver.answers = [];
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId);
    await ingest(ctx.db, [flow]);
    const answer = await adminGql(ctx.server.url, CREATE_ALERT_RULE, {
      input: { organizationId: tenant.organizationId, name: 'failures', url: receiver.url, ...rule },
    });
    assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
    receiver.secret = answer.body.data.createAlertRule.signingSecret ?? undefined;
    return { organizationId: tenant.organizationId, workflowUuid: flow.uuid as string };
  }

  it('is retried with growing delays until its horizon, then FAILED with its attempts and last error, and sent again only by redeliver', async () => {
    const { organizationId, workflowUuid } = await setup({
      condition: 'EXECUTION_FAILED',
      target: 'WEBHOOK',
    });
    receiver.answers = Array.from({ length: 1000 }, () => 500);
    const queuedAt = Date.now();
    await ingest(ctx.db, [execution(organizationId, workflowUuid, { status: 'FAILURE', startedAt: now() })]);

    const [failed] = await deliveriesWhen(
      ctx.server.url,
      organizationId,
      (d) => d[0]?.status === 'FAILED',
      GIVE_UP_MS + 5000,
    );
    const attempts = [...receiver.received];
    // The first attempt, at least two retries and the one at the horizon (fewer retries fit when the machine is slow).
    assert.ok(attempts.length >= 4, `only ${attempts.length} attempts`);
    assert.equal(failed.attempts, attempts.length);
    assert.equal(failed.responseStatus, 500);
    assert.equal(
      failed.lastError,
      `the receiver answered 500; gave up after ${attempts.length} attempts over ${GIVE_UP_MS} ms`,
    );
    for (const attempt of attempts) {
      assert.equal(attempt.headers['webhook-id'], failed.id);
      assert.equal(attempt.verified, true);
    }
    // Exponential backoff with jitter: the n-th retry waits base x 2^(n-1) x [0.5, 1.5), the last
    // one cut short by the horizon. The lower bounds double from retry to retry; the upper ones
    // only catch a delay far too long.
    const gaps = attempts.slice(1).map((attempt, i) => attempt.at - attempts[i]!.at);
    for (const [i, gap] of gaps.slice(0, -1).entries()) {
      const nominal = RETRY_BASE_MS * 2 ** i;
      assert.ok(
        gap >= nominal * 0.5 - 5,
        `retry ${i + 1} came after ${gap} ms, before ${nominal * 0.5} ms: ${gaps}`,
      );
      assert.ok(
        gap <= nominal * 1.5 + LATE_MS,
        `retry ${i + 1} came after ${gap} ms, not ~${nominal} ms: ${gaps}`,
      );
    }
    // The last attempt is the one at the horizon.
    const last = attempts.at(-1)!.at;
    assert.ok(last >= queuedAt + GIVE_UP_MS - SLACK_MS, `last attempt ${last - queuedAt} ms after queueing`);
    assert.ok(last <= queuedAt + GIVE_UP_MS + LATE_MS, `last attempt ${last - queuedAt} ms after queueing`);

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
    // Given up means never sent again on its own: none came while the CLI started and listed
    // (seconds, over a hundred polls), which no real-clock wait would show better.
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

  it('keeps re-sending a firing Alertmanager alert that has fired for longer than the horizon, through a failed re-send', async () => {
    // The receiver stands in for Alertmanager here: it answers any path, and the test decides what.
    const { organizationId, workflowUuid } = await setup({
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
    while (receiver.received.at(-1)!.at < first + GIVE_UP_MS + RESEND_MS) {
      await receiver.waitFor(receiver.received.length + 1, RESEND_MS * 1.5 + 5000);
    }
    const sent = receiver.received.length;
    assert.ok(sent >= 3, `posted ${sent} times in ${GIVE_UP_MS + RESEND_MS} ms`);
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
