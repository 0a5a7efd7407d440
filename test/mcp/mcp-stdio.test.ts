// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runCli } from '../harness/cli.js';
import { createTenant } from '../harness/fixtures.js';
import { cleanEnv, cliArgs, ROOT } from '../harness/process.js';
import { useServer } from '../harness/suite.js';
import { callError, callOk, connectHttp } from './mcp-client.js';
import { buildIncident, WINDOW } from './mcp-data.js';

/** `wfapi mcp` as a host starts it: a child process speaking MCP on stdin and stdout. */
async function connectStdio(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'wfapi-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...cliArgs(), 'mcp'],
      cwd: ROOT,
      env: cleanEnv({ WFAPI_URL: url, WFAPI_API_KEY: key }) as Record<string, string>,
      stderr: 'pipe',
    }),
  );
  return client;
}

describe('wfapi mcp: the same tools over stdio, through a running server', () => {
  const ctx = useServer({ rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });

  it("answers as /mcp does, within the key's organization", async () => {
    const mine = await createTenant(ctx.db, 'Mine');
    const theirs = await createTenant(ctx.db, 'Theirs');
    const incident = await buildIncident(ctx.db, mine, 'mine');
    const other = await buildIncident(ctx.db, theirs, 'theirs');
    const stdio = await connectStdio(ctx.server.url, mine.key);
    const http = await connectHttp(ctx.server.url, mine.key);
    try {
      const local = (await stdio.listTools()).tools.map((tool) => tool.name);
      const remote = (await http.listTools()).tools.map((tool) => tool.name);
      assert.deepEqual(local, remote);
      assert.equal(local.length, 11);
      for (const [name, args] of [
        ['list_workflows', {}],
        ['get_execution', { uuid: incident.firstFailureUuid }],
        ['error_groups', { workflow: incident.workflowName, ...WINDOW }],
        ['search_logs', { query: 'reverted', ...WINDOW }],
        ['find_executions', { workflow: incident.workflowName, ...WINDOW }],
        ['deployment_impact', { workflow: incident.workflowName }],
        ['anomalies', { workflow: incident.workflowName, ...WINDOW }],
        ['service_levels', {}],
      ] as const) {
        assert.deepEqual(
          (await callOk(stdio, name, args)).structured,
          (await callOk(http, name, args)).structured,
          name,
        );
      }
      assert.match(await callError(stdio, 'get_execution', { uuid: other.firstFailureUuid }), /No execution/);
      assert.match(
        await callError(stdio, 'workflow_health', { workflow: other.workflowName }),
        /No workflow named/,
      );
      assert.match(await callError(stdio, 'list_workflows', { pageSize: 0 }), /pageSize must be at least 1/);
      const prompt = await stdio.getPrompt({
        name: 'investigate',
        arguments: { subject: incident.firstFailureUuid },
      });
      assert.match((prompt.messages[0]!.content as { text: string }).text, /get_execution/);
    } finally {
      await stdio.close();
      await http.close();
    }
  });

  it('ends at once with a message when the key is refused', async () => {
    const result = await runCli(
      ['mcp'],
      { WFAPI_URL: ctx.server.url, WFAPI_API_KEY: 'wfk_wrong' },
      '',
      60_000,
    );
    assert.notEqual(result.code, 0);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /refused the API key/);
  });
});
