// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { clientSnippets, compile } from '../harness/client-snippets.js';
import { seedDataset } from '../harness/dataset.js';
import { createTenant } from '../harness/fixtures.js';
import { cleanEnv, ROOT } from '../harness/process.js';
import { useServer } from '../harness/suite.js';

const run = promisify(execFile);
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SECTION = README.slice(README.indexOf('\n### The typed client\n'));
/** The README's install command: `npm install /path/to/wfapi`. */
const INSTALL = /```sh\n(npm install \S+)/.exec(SECTION)?.[1] ?? '';
/** The README's example program. */
const SNIPPET = clientSnippets(SECTION)[0];

/**
 * A project of the user's own: an ES module package in a fresh directory, nothing installed.
 * Its npm runs offline (nothing may need downloading), without an audit, and without lifecycle
 * scripts: `prepare` would rebuild this checkout's dist/ under the other tests when its sources
 * changed since the last build.
 */
function userProject(scratch: string, name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  return dir;
}
const NPM_FLAGS = ['--offline', '--no-audit', '--no-fund', '--ignore-scripts'];

describe('wfapi/client in a project of its own', () => {
  const ctx = useServer();
  const scratch = mkdtempSync(join(tmpdir(), 'wfapi-client-install-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  /**
   * The README's snippet as the project's index.ts: compiled under `tsc --strict` against what
   * the project installed, then run with Node against the server; answers its output.
   */
  async function compileAndRun(project: string): Promise<string> {
    assert.ok(SNIPPET, 'the README has a ```ts block importing wfapi/client under "The typed client"');
    const source = join(project, 'index.ts');
    const { diagnostics, resolved } = compile(new Map([[source, SNIPPET]]), { outDir: project });
    assert.deepEqual(diagnostics, []);
    assert.equal(
      realpathSync(resolved.get(source)!),
      realpathSync(join(project, 'node_modules/wfapi/dist/client/index.d.ts')),
    );
    const tenant = await createTenant(ctx.db);
    const data = await seedDataset(ctx.db, tenant.organizationId, { executions: 10 });
    const { stdout } = await run(process.execPath, [join(project, 'index.js')], {
      cwd: project,
      env: cleanEnv({ WFAPI_URL: ctx.server.url, WFAPI_API_KEY: tenant.key }),
    });
    for (const workflow of data.workflows) assert.ok(stdout.includes(workflow.name as string), stdout);
    const failed = data.executions.filter((execution) => execution.status === 'FAILURE');
    assert.ok(failed.length > 0);
    for (const execution of failed) {
      assert.ok(stdout.includes(`${execution.uuid} http fetch returned 502`), stdout);
    }
    return stdout;
  }

  it("installs from the checkout as the README says, and the README's snippet compiles and runs against a server", async () => {
    assert.ok(INSTALL.endsWith(' /path/to/wfapi'), `the README's install command: ${INSTALL}`);
    const project = userProject(scratch, 'linked');
    const [npm, ...args] = INSTALL.replace('/path/to/wfapi', ROOT).split(' ');
    await run(npm!, [...args, ...NPM_FLAGS], { cwd: project, env: cleanEnv() });
    // A link to the checkout: the client comes from its dist/, and nothing else was installed.
    assert.ok(lstatSync(join(project, 'node_modules/wfapi')).isSymbolicLink());
    assert.equal(realpathSync(join(project, 'node_modules/wfapi')), realpathSync(ROOT));
    await compileAndRun(project);
  });

  it("installs from npm pack's tarball: the files it ships are a working wfapi/client", async () => {
    const tarballs = join(scratch, 'tarballs');
    mkdirSync(tarballs);
    const { stdout } = await run('npm', ['pack', '--pack-destination', tarballs, '--json', ...NPM_FLAGS], {
      cwd: ROOT,
      env: cleanEnv(),
    });
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    assert.match(filename, /^wfapi-\d+\.\d+\.\d+\.tgz$/);
    // What `npm install <tarball>` puts in node_modules/wfapi: the tarball's package/ folder. (npm
    // itself would also download the server's dependencies, which the client never imports.)
    const project = userProject(scratch, 'packed');
    const installed = join(project, 'node_modules/wfapi');
    mkdirSync(installed, { recursive: true });
    await run('tar', ['-xzf', join(tarballs, filename), '-C', installed, '--strip-components=1']);
    assert.ok(!lstatSync(installed).isSymbolicLink());
    await compileAndRun(project);
  });
});
