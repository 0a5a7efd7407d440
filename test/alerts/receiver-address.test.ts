import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_TOKEN, adminGql } from '../admin/admin-request.js';
import { createTenant, execution, ingest, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { CREATE_ALERT_RULE, deliveriesWhen } from './alerts-request.js';

/** Loopback written as IPv4 embedded in IPv6, and addresses of the documentation and reserved ranges. */
const REFUSED = [
  '[::7f00:1]', // IPv4-compatible ::127.0.0.1
  '[64:ff9b:1::7f00:1]', // local-use NAT64
  '[64:ff9b::7f00:1]', // well-known NAT64
  '[2002:7f00:1::]', // 6to4
  '[::ffff:0:7f00:1]', // IPv4-translated (SIIT)
  '[::ffff:127.0.0.1]', // IPv4-mapped
  '[::ffff:a9fe:a9fe]', // IPv4-mapped 169.254.169.254
  '[2001:0:4136:e378:8000:63bf:80ff:fffe]', // Teredo
  '[2001:db8::1]',
  '[3fff::1]',
  '[fd00::1]',
  '192.0.2.1',
  '198.51.100.7',
  '203.0.113.9',
  '198.18.0.1',
  '100.64.0.1',
  '240.0.0.1',
  '255.255.255.255',
  '192.88.99.1',
];

/** Public addresses, also when IPv4 is written in a translation form. */
const ACCEPTED = ['93.184.215.14', '[2606:4700:4700::1111]', '[64:ff9b::5db8:d70e]', '[2002:5db8:d70e::1]'];

describe('the webhook address check', () => {
  const ctx = useServer({ adminToken: ADMIN_TOKEN, alerts: { pollMs: 50, retryBaseMs: 60_000 } });

  async function createRule(organizationId: string, url: string) {
    return adminGql(ctx.server.url, CREATE_ALERT_RULE, {
      input: { organizationId, name: 'r', condition: 'EXECUTION_FAILED', target: 'WEBHOOK', url },
    });
  }

  it('refuses a rule whose receiver is loopback in any IPv4-in-IPv6 form, or in a documentation or reserved range', async () => {
    const tenant = await createTenant(ctx.db);
    for (const host of REFUSED) {
      const answer = await createRule(tenant.organizationId, `http://${host}:9/hooks`);
      assert.equal(
        answer.body.errors?.[0]?.extensions?.code,
        'BAD_USER_INPUT',
        `${host}: ${JSON.stringify(answer.body)}`,
      );
      assert.match(
        answer.body.errors[0].message,
        /^url resolves to \S+, a loopback, private or reserved address/,
        host,
      );
    }
    for (const host of ACCEPTED) {
      const answer = await createRule(tenant.organizationId, `https://${host}/hooks`);
      assert.equal(answer.body.errors, undefined, `${host}: ${JSON.stringify(answer.body)}`);
    }
  });

  it('refuses at delivery time too a receiver that became one of these addresses after the rule was saved', async () => {
    const tenant = await createTenant(ctx.db);
    const flow = workflow(tenant.organizationId);
    await ingest(ctx.db, [flow]);
    const created = await createRule(tenant.organizationId, 'https://93.184.215.14/hooks');
    const ruleId = created.body.data.createAlertRule.rule.id as string;
    // As a rule saved by an older version, or by a server that allowed private receivers.
    const hosts = ['[::7f00:1]', '[64:ff9b:1::7f00:1]', '[2002:7f00:1::]', '[::ffff:0:7f00:1]', '192.0.2.1'];
    for (const [i, host] of hosts.entries()) {
      await ctx.db.query('update alert_rules set url = $1 where id = $2', [`http://${host}:9/hooks`, ruleId]);
      const startedAt = new Date(Date.now() - 1000 * (i + 1)).toISOString();
      await ingest(ctx.db, [
        execution(tenant.organizationId, flow.uuid as string, { status: 'FAILURE', startedAt }),
      ]);
      const deliveries = await deliveriesWhen(
        ctx.server.url,
        tenant.organizationId,
        (all) => all.filter((d) => d.attempts > 0).length > i,
      );
      const attempted = deliveries.filter((d) => d.attempts > 0);
      const errors = attempted.map((d) => d.lastError as string);
      const bare = host.replace(/^\[(.*)\]$/, '$1');
      assert.ok(
        errors.some((error) => error === `${bare} is a private address`),
        `${host}: ${JSON.stringify(errors)}`,
      );
      assert.ok(attempted.every((d) => d.status !== 'DELIVERED'));
    }
  });
});
