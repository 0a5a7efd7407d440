/**
 * A real `nats-server -js` (Debian's nats-server package, installed by .ci/run) on a free
 * loopback port with a temporary store directory and no monitoring port; one per test file.
 * A suite that needs it says `requireEngine('nats-server')` (harness/engines.ts) to skip without it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { enginePath } from './engines.js';
import { freePort } from './process.js';

export interface NatsServer {
  readonly url: string;
  stop(): Promise<void>;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export async function startNatsServer(): Promise<NatsServer> {
  const natsServer = enginePath('nats-server');
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-nats-'));
  const port = await freePort();
  const server: ChildProcess = spawn(
    natsServer,
    ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir, '-m', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  server.stdout!.on('data', keep);
  server.stderr!.on('data', keep);
  const deadline = Date.now() + 15_000;
  // The client port opens once JetStream has started.
  while (!(await accepts(port))) {
    if (server.exitCode !== null) throw new Error(`nats-server exited: ${output}`);
    if (Date.now() > deadline) throw new Error(`nats-server not listening within 15 s: ${output}`);
    await sleep(50);
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      if (server.exitCode === null) {
        const exited = once(server, 'exit');
        server.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
