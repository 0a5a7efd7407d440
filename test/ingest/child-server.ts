/** `wfapi serve` as a real child process over a test database, for crash and memory tests. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';
import { openTestDatabase, TEST_DB } from '../harness/database.js';
import { createTenant, type Tenant } from '../harness/fixtures.js';
import { INGEST_TOKEN } from './http.js';

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Resident set size now and at its peak, in bytes, from /proc (Linux). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * A database for a server process: PostgreSQL (a fresh test database) or the embedded database
 * in a temporary directory, which the server process owns while it runs. Holds one tenant.
 */
export interface ServerDatabase {
  readonly env: Record<string, string>;
  readonly tenant: Tenant;
  /** The data, for checks once the server has stopped. */
  open(): Promise<Database>;
  cleanup(): Promise<void>;
}

export async function serverDatabase(): Promise<ServerDatabase> {
  if (TEST_DB === 'postgres') {
    const database = await openTestDatabase();
    const tenant = await createTenant(database.db);
    return {
      env: { DATABASE_URL: database.url! },
      tenant,
      open: async () => database.db,
      cleanup: () => database.close(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-server-'));
  const setup = await openPglite(dir);
  await migrate(setup);
  const tenant = await createTenant(setup);
  await setup.close();
  let reopened: Database | undefined;
  return {
    env: { WFAPI_DATA_DIR: dir, DATABASE_URL: '' },
    tenant,
    async open() {
      reopened ??= await openPglite(dir);
      return reopened;
    },
    async cleanup() {
      await reopened?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts `wfapi serve` with the ingest token; resolves once /readyz answers 200. */
export async function serve(
  env: Record<string, string>,
  port: number,
  nodeOptions: readonly string[] = [],
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeOptions, '--import', 'tsx', 'src/cli/dev.ts', 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      WFAPI_INGEST_TOKEN: INGEST_TOKEN,
      WFAPI_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`wfapi serve exited ${child.exitCode}: ${stderr}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (ready?.status === 200) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`wfapi serve did not become ready: ${stderr}`);
}

/** Stops a child server that is still running. */
export async function stop(
  child: ChildProcess | undefined,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  await exited(child);
}
