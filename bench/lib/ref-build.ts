import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * An earlier version, compiled, in its own directory; returns its CLI (`bin/wfapi.js`), for
 * ServerProcess.start's `cli`. The version is exported with `git archive` into a temporary
 * directory (reused while it exists), shares this checkout's node_modules (the dependencies must
 * match) and is compiled there.
 */
export function buildRef(ref: string): string {
  const sha = execFileSync('git', ['rev-parse', '--short', ref], { cwd: ROOT }).toString().trim();
  const dir = join(tmpdir(), `wfapi-bench-ref-${sha}`);
  const cli = join(dir, 'bin', 'wfapi.js');
  if (existsSync(join(dir, 'dist'))) {
    linkModules(dir);
    return cli;
  }
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C ${dir}`], { cwd: ROOT });
  linkModules(dir);
  const built = spawnSync(
    'sh',
    ['-c', `${join(ROOT, 'node_modules/.bin/tsc')} -p tsconfig.build.json && node scripts/copy-assets.mjs`],
    { cwd: dir, stdio: 'inherit' },
  );
  if (built.status !== 0) throw new Error(`building ${ref} failed`);
  return cli;
}

/**
 * Points a build's node_modules at this checkout's. A reused build may still link the checkout
 * that made it (another worktree, since removed), and its imports then fail to resolve.
 */
function linkModules(dir: string): void {
  const link = join(dir, 'node_modules');
  const target = join(ROOT, 'node_modules');
  let current: string | undefined;
  try {
    current = readlinkSync(link);
  } catch {
    current = undefined;
  }
  if (current === target) return;
  rmSync(link, { force: true });
  symlinkSync(target, link);
}
