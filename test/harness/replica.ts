/**
 * A real streaming replica of the test PostgreSQL (TEST_DATABASE_URL), made with `pg_basebackup -R`
 * into a temporary directory and run with `pg_ctl` on a free port, both as the `postgres` OS user.
 * The primary must accept replication connections from 127.0.0.1 (.ci/run sets that up; a suite
 * that needs it says `requireEngine('replication')`, harness/engines.ts). The
 * replica copies the whole cluster, so every database the test made beforehand is on it (and a
 * cluster holding large benchmark databases takes longer to copy). The binaries are Debian's
 * (/usr/lib/postgresql/<major>/bin) of the primary's major version, which a standby must match.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { requireEngine } from './engines.js';
import { eventually } from './eventually.js';
import { freePort } from './process.js';

const run = promisify(execFile);
const PRIMARY_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Slots of this prefix carry the pid of the test process that made them. */
const SLOT_PREFIX = 'wfapi_test_replica_';

export interface TestReplica {
  readonly port: number;
  /** A connection string to `database` on the replica. */
  url(database: string): string;
  /** One query on the replica's `database` (a fresh connection). */
  query<Row = Record<string, unknown>>(database: string, text: string): Promise<Row[]>;
  /** `pg_ctl stop -m immediate`: the replica vanishes as if its machine died. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /**
   * Resolves once the replica has replayed everything the primary had written when called. After a
   * restart the replica replays all the cluster's WAL since its last restartpoint, which on a machine
   * running the whole suite against the same primary can take a while: hence the long deadline.
   */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** Stops the replica, drops its replication slot on the primary and removes its directory. */
  close(): Promise<void>;
}

/** Debian's binaries of the primary's major version: a standby must run the same one. */
let binaries: Promise<string> | undefined;
function binDir(): Promise<string> {
  binaries ??= onPrimary<{ version: string }>("select current_setting('server_version_num') as version").then(
    ([row]) => `/usr/lib/postgresql/${Math.floor(Number(row!.version) / 10_000)}/bin`,
  );
  return binaries;
}

async function asPostgres(command: string, args: readonly string[]) {
  const bin = join(await binDir(), command);
  try {
    return await run('runuser', ['-u', 'postgres', '--', bin, ...args], { timeout: 120_000 });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${command} failed: ${stderr || stdout || String(error)}`);
  }
}

async function onPrimary<Row>(text: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: PRIMARY_URL });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A replication slot keeps the WAL the replica needs while it is stopped; slots left by test
 * processes that died without dropping them would keep WAL for ever, so those are dropped first.
 */
async function dropOrphanSlots(): Promise<void> {
  const slots = await onPrimary<{ slot_name: string }>(
    'select slot_name from pg_replication_slots where not active and slot_name like $1',
    [`${SLOT_PREFIX}%`],
  );
  for (const { slot_name } of slots) {
    const pid = Number(slot_name.slice(SLOT_PREFIX.length).split('_')[0]);
    if (!alive(pid)) await onPrimary('select pg_drop_replication_slot($1)', [slot_name]);
  }
}

/** Settings a standby must have at least as high as its primary's, or it refuses to start. */
const AT_LEAST_PRIMARY = [
  'max_connections',
  'max_worker_processes',
  'max_wal_senders',
  'max_prepared_transactions',
  'max_locks_per_transaction',
];

export async function startReplica(): Promise<TestReplica> {
  // The tests skip on requireEngine('replication') first; a benchmark gets the same reason here.
  const { skip } = await requireEngine('replication');
  if (skip) throw new Error(skip);
  await dropOrphanSlots();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'wfapi-replica-'));
  const { uid, gid } = await postgresIds();
  chownSync(dir, uid, gid);
  const slot = `${SLOT_PREFIX}${process.pid}_${port}`;
  const primary = new URL(PRIMARY_URL);
  await asPostgres('pg_basebackup', [
    '-h',
    primary.hostname,
    '-p',
    primary.port || '5432',
    '-U',
    primary.username || 'postgres',
    '-D',
    dir,
    '-R',
    // An immediate checkpoint: the default spreads it over minutes.
    '-c',
    'fast',
    '-X',
    'stream',
    '-C',
    '-S',
    slot,
  ]);
  // Debian keeps the primary's configuration in /etc, outside the data directory it copied.
  const settings = await onPrimary<{ name: string; setting: string }>(
    'select name, setting from pg_settings where name = any($1)',
    [AT_LEAST_PRIMARY],
  );
  writeFileSync(
    join(dir, 'postgresql.conf'),
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'shared_buffers = 32MB',
      'hot_standby = on',
      'hot_standby_feedback = on',
      ...settings.map(({ name, setting }) => `${name} = ${setting}`),
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
  writeFileSync(join(dir, 'pg_ident.conf'), '');
  for (const file of ['postgresql.conf', 'pg_hba.conf', 'pg_ident.conf'])
    chownSync(join(dir, file), uid, gid);

  const start = async () => {
    await asPostgres('pg_ctl', ['-D', dir, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  };
  const stop = async () => {
    await asPostgres('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']);
  };
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const query = async <Row>(database: string, text: string) => {
    const client = new pg.Client({ connectionString: url(database) });
    await client.connect();
    try {
      return (await client.query(text)).rows as Row[];
    } finally {
      await client.end();
    }
  };
  await start();
  return {
    port,
    url,
    query,
    stop,
    start,
    async caughtUp(timeoutMs = 180_000) {
      const [{ lsn }] = (await onPrimary<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')) as [
        { lsn: string },
      ];
      let replayed: string | null = null;
      await eventually(
        async () => {
          const [row] = await query<{ lsn: string | null; reached: boolean | null }>(
            'postgres',
            `select pg_last_wal_replay_lsn()::text as lsn, pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as reached`,
          ).catch(() => [{ lsn: null, reached: false }]);
          replayed = row?.lsn ?? null;
          return row?.reached === true;
        },
        () => `the replica to replay up to the primary's ${lsn} (replayed: ${replayed})`,
        { timeoutMs, everyMs: 100 },
      );
    },
    async close() {
      try {
        await stop().catch(() => {});
        await onPrimary('select pg_drop_replication_slot($1)', [slot]).catch(() => {});
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
