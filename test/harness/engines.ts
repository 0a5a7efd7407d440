/**
 * The engines some tests run beside wfapi: Prometheus, Alertmanager, NATS, Chromium, Redis and a
 * PostgreSQL that accepts replication connections. `requireEngine(name)` gives a suite node:test's
 * options: `{ skip: 'needs prometheus (apt-get install prometheus)' }` when the engine is absent,
 * so the suite prints one skipped line naming what to install instead of failing after a wait.
 * Under CI (`CI=true`, set by .ci/run, which installs every engine) an absent engine throws at
 * once, failing its file. Imports nothing but Node and pg, so bench/ may use it too.
 *
 * A binary counts as installed when it is on PATH, or in the `sbin` folder beside a PATH folder
 * (Debian puts nats-server in /usr/sbin, which an ordinary user's PATH leaves out).
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import pg from 'pg';

type Binary = 'prometheus' | 'promtool' | 'alertmanager' | 'nats-server' | 'chromium';
export type EngineName = Binary | 'redis' | 'replication';

/** The executables each binary engine may be called (Debian's name first), and how to install it. */
const BINARIES: Record<Binary, { readonly names: readonly string[]; readonly install: string }> = {
  prometheus: { names: ['prometheus'], install: 'apt-get install prometheus' },
  promtool: { names: ['promtool'], install: 'apt-get install prometheus' },
  alertmanager: {
    names: ['prometheus-alertmanager', 'alertmanager'],
    install: 'apt-get install prometheus-alertmanager',
  },
  'nats-server': { names: ['nats-server'], install: 'apt-get install nats-server' },
  chromium: { names: ['chromium'], install: 'apt-get install chromium' },
};

/** The Redis the rate-limit tests share, as .ci/run starts it. */
export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';
const PRIMARY_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The folders searched for a binary: PATH's, each followed by the `sbin` beside a `bin`. */
function searchPath(): string[] {
  const folders = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  return folders.flatMap((folder) =>
    folder.endsWith('/bin') ? [folder, join(dirname(folder), 'sbin')] : [folder],
  );
}

function findBinary(engine: Binary): string | undefined {
  for (const folder of searchPath()) {
    for (const name of BINARIES[engine].names) {
      const path = join(folder, name);
      if (existsSync(path) && executable(path)) return path;
    }
  }
  return undefined;
}

/** The path of a binary engine; throws the install hint when it is absent (a suite's `requireEngine` skips first). */
export function enginePath(engine: Binary): string {
  const path = findBinary(engine);
  if (!path) throw new Error(`needs ${engine} (${BINARIES[engine].install})`);
  return path;
}

/** Whether something answering Redis's PING listens at `url`, within two seconds. */
function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname);
    let reply = '';
    const settle = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(2_000, () => settle(false));
    socket.once('error', () => settle(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) settle(reply.startsWith('+PONG'));
    });
  });
}

/**
 * Why the replica tests cannot run here, or undefined when they can: they copy the test
 * PostgreSQL with Debian's pg_basebackup of its major version and run the copy with pg_ctl as
 * the `postgres` OS user (which takes root), over a replication connection from 127.0.0.1.
 */
async function replicationMissing(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PRIMARY_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
  } catch {
    return `needs a PostgreSQL at ${PRIMARY_URL} (set TEST_DATABASE_URL)`;
  }
  try {
    const [row] = (
      await client.query<{ version: string; rules: string | null }>(
        `select current_setting('server_version_num') as version,
                (select count(*)::text from pg_hba_file_rules
                  where type like 'host%' and 'replication' = any(database) and error is null
                    and case when address in ('all', 'samehost', 'samenet') then true
                             when netmask is null then false
                             else (inet '127.0.0.1' & netmask::inet) = (address::inet & netmask::inet) end
               ) as rules`,
      )
    ).rows;
    const major = Math.floor(Number(row!.version) / 10_000);
    if (!Number(row!.rules)) {
      return (
        'needs a PostgreSQL that accepts replication connections from 127.0.0.1 ' +
        '(add "host replication all 127.0.0.1/32 trust" to pg_hba.conf and reload, as .ci/run does)'
      );
    }
    if (!existsSync(`/usr/lib/postgresql/${major}/bin/pg_basebackup`)) {
      return `needs PostgreSQL ${major}'s server binaries (apt-get install postgresql-${major})`;
    }
    if (process.getuid?.() !== 0) return 'needs root, to run the replica as the postgres user (runuser)';
    return undefined;
  } catch (error) {
    return `needs a superuser on the test PostgreSQL to read pg_hba_file_rules (${(error as Error).message})`;
  } finally {
    await client.end();
  }
}

async function missing(engine: EngineName): Promise<string | undefined> {
  if (engine === 'redis') {
    return (await redisAnswers(TEST_REDIS_URL))
      ? undefined
      : 'needs Redis on 127.0.0.1:6379 (apt-get install redis-server)';
  }
  if (engine === 'replication') return replicationMissing();
  return findBinary(engine) ? undefined : `needs ${engine} (${BINARIES[engine].install})`;
}

const checks = new Map<EngineName, Promise<string | undefined>>();

/**
 * node:test options for a suite that needs `engine`: `{}` when it is there, `{ skip: reason }`
 * when it is absent; under CI an absent engine throws instead, failing the file at once.
 */
export async function requireEngine(engine: EngineName): Promise<{ skip?: string }> {
  if (!checks.has(engine)) checks.set(engine, missing(engine));
  const reason = await checks.get(engine)!;
  if (reason === undefined) return {};
  if (process.env.CI === 'true' || process.env.CI === '1') {
    throw new Error(`CI=true and an engine is absent: ${reason}`);
  }
  return { skip: reason };
}
