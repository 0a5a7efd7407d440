// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every process descended from `pid`, read from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {}
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe("npm's scripts", { skip: process.platform !== 'linux' }, () => {
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'wfapi-npm-'));
    // The scripts run the compiled CLI, which `npm install` builds; build it if it is missing.
    if (!existsSync(join(ROOT, 'dist/cli/run.js'))) {
      assert.equal(spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'ignore' }).status, 0);
    }
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it("start and serve replace npm's shell with the server, so signals reach it", () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
    assert.match(scripts.start, /^exec node bin\/wfapi\.js demo\b/);
    assert.match(scripts.serve, /^exec node bin\/wfapi\.js serve\b/);
  });

  it('SIGTERM sent to npm stops the server it started: no orphan process, the port closed', async () => {
    const npm = spawn('npm', ['run', '--silent', 'serve'], {
      cwd: ROOT,
      env: {
        ...process.env,
        WFAPI_DATA_DIR: join(dir, 'data'),
        PORT: '0',
        HOST: '127.0.0.1',
        WFAPI_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    npm.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    npm.stdout!.resume();
    const exited = new Promise((resolve) => npm.once('exit', resolve));
    const deadline = Date.now() + 60_000;
    let port = 0;
    while (!port && Date.now() < deadline && npm.exitCode === null) {
      port = Number(/wfapi listening on http:\/\/[^:]+:(\d+)/.exec(err)?.[1] ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(port, `the server did not start: ${err}`);
    const processes = descendants(npm.pid!);
    assert.ok(processes.length > 0);
    try {
      npm.kill('SIGTERM');
      await exited;
      const until = Date.now() + 15_000;
      while (processes.some(alive) && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(processes.filter(alive), [], 'processes npm started still run');
      assert.equal(await portOpen(port), false);
    } finally {
      for (const pid of processes.filter(alive)) process.kill(pid, 'SIGKILL');
    }
  });
});
