import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, adminGql } from '../admin/admin-request.js';
import { execution, workflow } from '../harness/fixtures.js';
import { freePort } from '../harness/process.js';
import { type ServerDatabase, serve, serverDatabase } from '../ingest/child-server.js';
import { INGEST_TOKEN } from '../ingest/http.js';
import { CREATE_ALERT_RULE, deliveriesWhen } from './alerts-request.js';
import { startReceiver } from './receiver.js';

async function postIngest(url: string, records: readonly Record<string, unknown>[]): Promise<void> {
  const response = await fetch(`${url}/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/x-ndjson' },
    body: records.map((r) => JSON.stringify(r)).join('\n'),
  });
  const body = await response.json();
  // The status and whole answer in the message: a refused batch says why.
  assert.deepEqual(body.rejected, [], `${response.status} ${JSON.stringify(body)}`);
}

describe('a pending delivery', () => {
  let database: ServerDatabase;
  before(async () => {
    database = await serverDatabase();
  });
  after(async () => {
    await database.cleanup();
  });

  it('survives a SIGKILL of the server between ingestion and the send, and is delivered once with the same webhook-id', async () => {
    const receiverPort = await freePort();
    const serverPort = await freePort();
    const url = `http://127.0.0.1:${serverPort}`;
    const env = {
      ...database.env,
      WFAPI_ADMIN_TOKEN: ADMIN_TOKEN,
      WFAPI_ALERTS_ALLOW_PRIVATE: '1',
      WFAPI_ALERTS_POLL_MS: '100',
      WFAPI_ALERTS_RETRY_BASE_MS: '300',
      // A delivery claimed just before the kill is due again after its lease: this plus 5 s.
      WFAPI_ALERTS_TIMEOUT_MS: '1000',
    };
    const organizationId = database.tenant.organizationId;
    let server = await serve(env, serverPort);
    try {
      const flow = workflow(organizationId);
      await postIngest(url, [flow]);
      const created = await adminGql(url, CREATE_ALERT_RULE, {
        input: {
          organizationId,
          name: 'failures',
          condition: 'EXECUTION_FAILED',
          target: 'WEBHOOK',
          url: `http://127.0.0.1:${receiverPort}/hooks`,
        },
      });
      const secret = created.body.data.createAlertRule.signingSecret;
      // The receiver is down: the answer to ingestion comes, the delivery cannot be sent.
      await postIngest(url, [
        execution(organizationId, flow.uuid as string, {
          status: 'FAILURE',
          startedAt: new Date().toISOString(),
        }),
      ]);
      const [pending] = await deliveriesWhen(url, organizationId, (d) => d.length === 1);
      assert.equal(pending.status, 'PENDING');
      const killed = await server.kill('SIGKILL');
      assert.equal(killed.signal, 'SIGKILL');

      const receiver = await startReceiver(receiverPort);
      receiver.secret = secret;
      try {
        server = await serve(env, serverPort);
        const [request] = await receiver.waitFor(1, 20_000).catch(async (error) => {
          const now = await adminGql(
            url,
            'query($o: String!) { webhookDeliveries(input: {organizationId: $o}) { status attempts nextAttemptAt lastError } }',
            { o: organizationId },
          );
          throw new Error(`${error.message}: ${JSON.stringify(now.body)} ${server.stderr().slice(-2000)}`);
        });
        assert.equal(request!.headers['webhook-id'], pending.id);
        assert.equal(request!.verified, true);
        const [delivered] = await deliveriesWhen(url, organizationId, (d) => d[0]?.status === 'DELIVERED');
        assert.equal(delivered.id, pending.id);
        // Delivered is final, and the claim's lease kept any other attempt out: it came once.
        assert.equal(receiver.received.length, 1);
      } finally {
        await receiver.close();
      }
    } finally {
      await server.kill('SIGTERM');
    }
  });
});
