import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMigratedPglite, openTestDatabase, TEST_DB } from '../harness/database.js';
import { createTenant, type Tenant } from '../harness/fixtures.js';
import { type Exit, startWfapi, type WfapiProcess } from '../harness/process.js';

/** `wfapi serve` running as a child process from source, with its output captured. */
export interface ServeProcess extends WfapiProcess {
  /** Resolves with the base URL once the server listens; rejects if the process exits first. */
  readonly ready: Promise<string>;
}

type Env = Record<string, string | undefined>;

/**
 * Starts `wfapi serve` (the test CLI: see test/harness/process.ts) with only the given environment (plus PATH),
 * so nothing from the test runner's environment leaks into the server's configuration.
 */
export function spawnServe(env: Env, args: readonly string[] = []): ServeProcess {
  const serve = startWfapi(['serve', ...args], { env: { PATH: process.env.PATH, PORT: '0', ...env } });
  const ready = serve.waitFor(/wfapi listening on (http:\/\/\S+)\/graphql/, undefined, 'stderr').then(
    (match) => match[1]!,
    async () => {
      const exit = await serve.exited;
      throw new Error(`wfapi serve exited (${exit.code ?? exit.signal}) before listening: ${serve.stderr()}`);
    },
  );
  ready.catch(() => {});
  return { ...serve, ready };
}

/** A database a server process can open, holding one tenant created beforehand. */
export interface ServedDatabase {
  /** The environment that points `wfapi serve` at this database. */
  readonly env: Env;
  readonly tenant: Tenant;
  close(): Promise<void>;
}

/**
 * Prepares the database of the current test target (WFAPI_TEST_DB) for a server process: a fresh PostgreSQL
 * database, or an embedded database directory (closed again here, as PGlite allows only one
 * process at a time).
 */
export async function prepareServedDatabase(): Promise<ServedDatabase> {
  if (TEST_DB === 'postgres') {
    const database = await openTestDatabase();
    const tenant = await createTenant(database.db, 'Served Org');
    return { env: { DATABASE_URL: database.url }, tenant, close: () => database.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-ops-'));
  const db = await openMigratedPglite(dir);
  const tenant = await createTenant(db, 'Served Org');
  await db.close();
  return {
    env: { WFAPI_DATA_DIR: dir },
    tenant,
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Parses every stdout line as JSON; a line that is not JSON fails the caller's assertion. */
export function logLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`stdout line is not JSON: ${line}`);
      }
    });
}

/** Waits for the process to exit, failing (and killing it) if it still runs after `ms`. */
export async function exitWithin(serve: ServeProcess, ms: number): Promise<Exit> {
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref());
  const outcome = await Promise.race([serve.exited, timer]);
  if (outcome === 'timeout') {
    await serve.kill();
    throw new Error(`wfapi serve still ran after ${ms} ms; stderr: ${serve.stderr()}`);
  }
  return outcome;
}
