// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../harness/cli.js';
import { cleanEnv, startWfapi } from '../harness/process.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const BANNER =
  /GraphQL endpoint\s+(http:\/\/\S+)\/graphql[\s\S]*admin token\s+(\S+)[\s\S]*ingest token\s+(\S+)[\s\S]*Try it:/;

/** The first shell block under the README heading `heading`. */
function shellBlock(heading: string): string[] {
  const start = README.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `the README has no "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(README.slice(start))![1]!;
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Words of a command line as a shell splits them, quotes removed (these lines use no variables). */
const words = (line: string) =>
  [...line.matchAll(/(?:'[^']*'|"[^"]*"|[^\s'"])+/g)].map((m) =>
    m[0].replace(/'([^']*)'|"([^"]*)"/g, '$1$2'),
  );

describe("the README's first steps", () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-readme-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('load your own data into the demo exactly as written', async () => {
    // `npm start` runs `wfapi demo`; a smaller month keeps the test short, the steps are the same.
    const demo = startWfapi(['demo', '--executions', '300', '--workflows', '3', '--days', '1'], {
      env: cleanEnv({ NO_COLOR: '1', WFAPI_DATA_DIR: join(dir, 'demo'), PORT: '0' }),
    });
    try {
      const [, url, adminToken, ingestToken] = await demo.waitFor(BANNER, 120_000);
      // What the reader substitutes: the banner's tokens, then the key simulate prints.
      const known = new Map([
        ['<admin token>', adminToken!],
        ['<ingest token>', ingestToken!],
      ]);
      // The README's commands talk to http://127.0.0.1:4000, the demo's default; this one listens elsewhere.
      const env: Record<string, string> = { WFAPI_URL: url! };
      const outputs: Record<string, string> = {};
      for (const line of shellBlock('### Your own data')) {
        const [command, ...args] = words(line);
        if (command === 'export') {
          for (const assignment of args) {
            const [name, value] = assignment.split(/=(.*)/s) as [string, string];
            assert.ok(known.has(value), `the README asks for ${value}, which the steps before do not give`);
            env[name] = known.get(value)!;
          }
          continue;
        }
        assert.equal(command, 'wfapi', line);
        // Files go to a scratch directory rather than the checkout. Ingesting the week of 5,000
        // executions into the embedded database takes some 40 s on an idle machine of two cores
        // (README, "Your own data"), and another test file runs beside this one: five minutes each.
        const run = await runCli(
          args.map((arg) => (arg.endsWith('.ndjson') ? join(dir, arg) : arg)),
          env,
          '',
          300_000,
        );
        assert.equal(run.code, 0, `${line}\n${run.stderr}`);
        outputs[args[0]!] = run.stdout;
        const key = /API key\s+(wfk_\w+)/.exec(run.stdout)?.[1];
        if (key) known.set('<the API key simulate printed>', key);
      }
      assert.match(outputs.ingest!, /: \d+ accepted, 0 rejected/);
      const workflows = outputs.workflows!.split('\n');
      assert.match(workflows[0]!, /^NAME\s+UUID\s+STATUS\s+RUNS 24H\s+FAILURE RATE 24H/);
      assert.ok(workflows.includes('8 workflows'), outputs.workflows);
      assert.equal(outputs.orgs!.trimEnd().split('\n').length, 3, 'the demo organization and the new one');
    } finally {
      demo.child.kill('SIGINT');
      await demo.exited;
    }
  });
});
