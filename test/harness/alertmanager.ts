import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enginePath } from './engines.js';
import { freePort } from './process.js';

/** A real Alertmanager on a free loopback port, with its own configuration and storage. */
export interface Alertmanager {
  readonly url: string;
  close(): void;
}

/** A configuration that routes every alert to a receiver that sends nothing. */
export const NULL_ROUTE = "route:\n  receiver: 'null'\nreceivers:\n  - name: 'null'\n";

/**
 * Starts Debian's `alertmanager` (ask `requireEngine('alertmanager')` first) with `config` and waits,
 * polling `/-/ready`, until it answers; fails after `timeoutMs`.
 */
export async function startAlertmanager(config = NULL_ROUTE, timeoutMs = 20_000): Promise<Alertmanager> {
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-alertmanager-'));
  writeFileSync(join(dir, 'alertmanager.yml'), config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    enginePath('alertmanager'),
    [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
    ],
    { stdio: 'ignore' },
  );
  const close = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { url, close };
    if (Date.now() > deadline || child.exitCode !== null) {
      close();
      throw new Error(`alertmanager did not become ready at ${url}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
