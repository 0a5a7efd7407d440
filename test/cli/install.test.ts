// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { COMPILED_CLI, cleanEnv, ROOT } from '../harness/process.js';

const run = promisify(execFile);
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

/** The lines of the first shell block under the README heading `heading`. */
function shellBlock(heading: string): string[] {
  const section = README.slice(README.indexOf(`\n${heading}\n`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').filter((line) => line.trim() !== '');
}

describe('wfapi on the PATH of a checkout', () => {
  // npm's global folder for this test alone, so that the link goes nowhere else.
  const prefix = mkdtempSync(join(tmpdir(), 'wfapi-npm-prefix-'));
  after(() => rmSync(prefix, { recursive: true, force: true }));
  const env = cleanEnv({
    NPM_CONFIG_PREFIX: prefix,
    PATH: [join(prefix, 'bin'), process.env.PATH].join(delimiter),
  });

  it("runs as the README's command line section says: npm link, then wfapi --version prints the package's version", async () => {
    const [link, check] = shellBlock('### The command line');
    assert.equal(link, 'npm link');
    assert.equal(check, 'wfapi --version');
    // Without lifecycle scripts: `prepare` would rebuild dist/ under the other tests whenever
    // the sources changed since the last build (on a checkout fresh from npm install it builds
    // nothing). Offline: linking downloads nothing.
    await run('npm', ['link', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
      cwd: ROOT,
      env,
    });
    assert.equal(realpathSync(join(prefix, 'bin/wfapi')), realpathSync(COMPILED_CLI));
    for (const flag of ['--version', '-V']) {
      // As a shell runs it: `wfapi` found on the PATH, started through its #! line.
      const { stdout, stderr } = await run('wfapi', [flag], { cwd: tmpdir(), env });
      assert.equal(stdout, `${version}\n`);
      assert.equal(stderr, '');
    }
  });
});
