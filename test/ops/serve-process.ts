import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';
import { openTestDatabase, TEST_DB } from '../harness/database.js';
import { createTenant, type Tenant } from '../harness/fixtures.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEV_CLI = join(ROOT, 'src/cli/dev.ts');

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** `wfapi serve` running as a child process from source, with its output captured. */
export interface ServeProcess {
  readonly child: ChildProcess;
  /** Resolves with the base URL once the server listens; rejects if the process exits first. */
  readonly ready: Promise<string>;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<Exit>;
  stdout(): string;
  stderr(): string;
  /** SIGKILLs the process if it still runs; for cleanup only. */
  kill(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/**
 * Starts `node --import tsx src/cli/dev.ts serve` with only the given environment (plus PATH),
 * so nothing from the test runner's environment leaks into the server's configuration.
 */
export function spawnServe(env: Env, args: readonly string[] = []): ServeProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', DEV_CLI, 'serve', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<Exit>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const ready = new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /wfapi listening on (http:\/\/\S+)\/graphql/.exec(err);
      if (match) {
        child.stderr!.off('data', onData);
        resolve(match[1]!);
      }
    };
    child.stderr!.on('data', onData);
    void exited.then((exit) =>
      reject(new Error(`wfapi serve exited (${exit.code ?? exit.signal}) before listening: ${err}`)),
    );
  });
  ready.catch(() => {});
  return {
    child,
    ready,
    exited,
    stdout: () => out,
    stderr: () => err,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
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
  const db = await openPglite(dir);
  await migrate(db);
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
