// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { eventually } from '../harness/eventually.js';
import { cleanEnv, startWfapi, type WfapiProcess } from '../harness/process.js';

const SIZE = ['--executions', '3000', '--workflows', '6', '--days', '3'];
const BANNER =
  /GraphQL endpoint\s+(http:\/\/\S+)\/graphql[\s\S]*API key\s+(wfk_\w+)[\s\S]*admin token\s+(\S+)[\s\S]*Try it:/;

async function query(url: string, key: string) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Apikey ${key}` },
    body: JSON.stringify({
      query: '{ workflows(input: {}) { count } workflowExecutions(input: {}) { count } }',
    }),
  });
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  return {
    workflows: body.data.workflows.count as number,
    executions: body.data.workflowExecutions.count as number,
  };
}

/** Starts the demo and resolves once its banner is printed. */
async function startDemo(dataDir: string) {
  const demo = startWfapi(['demo', ...SIZE], {
    env: cleanEnv({ NO_COLOR: '1', WFAPI_DATA_DIR: dataDir, PORT: '0' }),
  });
  const [, url, key, adminToken] = await demo.waitFor(BANNER, 120_000);
  return { demo, url: url!, key: key!, adminToken: adminToken! };
}

async function stop(demo: WfapiProcess): Promise<number | null> {
  demo.child.kill('SIGINT');
  return (await demo.exited).code;
}

describe('wfapi demo', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wfapi-demo-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('loads a month on the first start, prints a working key and tokens, and reuses the data on the next start', async () => {
    const first = await startDemo(dataDir);
    let before: { workflows: number; executions: number };
    try {
      assert.match(first.demo.stdout(), /curl -s http:\/\/\S+\/graphql .*Apikey wfk_/);
      const early = await query(first.url, first.key);
      assert.equal(early.workflows, 6);
      assert.ok(early.executions > 0, 'the last hour is loaded before the banner');
      await eventually(() => first.demo.stderr().includes('demo history complete'), 'the history', {
        timeoutMs: 120_000,
        everyMs: 250,
      });
      before = await query(first.url, first.key);
      assert.ok(before.executions > 2000 && before.executions < 4000, `${before.executions} executions`);
      const admin = await fetch(`${first.url}/admin/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${first.adminToken}` },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      assert.equal(admin.status, 200, 'the printed admin token opens the admin interface');
      assert.equal(await stop(first.demo), 0, first.demo.stderr());
    } finally {
      first.demo.child.kill('SIGKILL');
    }

    const statePath = join(dataDir, 'wfapi-demo.json');
    assert.equal(statSync(statePath).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(statePath, 'utf8')).apiKey, first.key);

    const second = await startDemo(dataDir);
    try {
      assert.equal(second.key, first.key);
      assert.equal(second.adminToken, first.adminToken);
      assert.match(second.demo.stdout(), /reused/);
      assert.doesNotMatch(second.demo.stderr(), /loading the last hour/);
      const again = await query(second.url, second.key);
      assert.equal(again.workflows, 6);
      assert.ok(again.executions >= before.executions, `${again.executions} < ${before.executions}`);
      assert.equal(await stop(second.demo), 0, second.demo.stderr());
    } finally {
      second.demo.child.kill('SIGKILL');
    }
  });
});
