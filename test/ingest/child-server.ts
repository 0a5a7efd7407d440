/** `wfapi serve` as a real child process over a test database, for crash and memory tests. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/db/database.js';
import { openPglite } from '../../src/db/pglite.js';
import { openMigratedPglite, openTestDatabase, TEST_DB } from '../harness/database.js';
import { createTenant, type Tenant } from '../harness/fixtures.js';
import { startWfapi, type WfapiProcess, waitUntilReady } from '../harness/process.js';
import { INGEST_TOKEN } from './http.js';

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
  const setup = await openMigratedPglite(dir);
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
): Promise<WfapiProcess> {
  const server = startWfapi(['serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      WFAPI_INGEST_TOKEN: INGEST_TOKEN,
      WFAPI_LOG_LEVEL: 'warn',
      ...env,
    },
    nodeOptions,
  });
  await waitUntilReady(server, `http://127.0.0.1:${port}`);
  return server;
}
