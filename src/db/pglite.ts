import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { copyChunks } from './copy-text.js';
import type { Database, Transaction } from './database.js';
import { keepPrivate, makePrivateDirectory } from './private-files.js';

const TIMESTAMP_OID = 1114;
const TIMESTAMPTZ_OID = 1184;

/**
 * A Date as PostgreSQL reads it, for every instant a Date holds (as the pg driver writes it):
 * PGlite's own serializer uses toISOString, whose `+010000-...` and `0000-...`/`-000001-...`
 * forms PostgreSQL refuses, so a query bound near the ends of the Time range would fail.
 */
function serializeTimestamp(value: unknown): string {
  if (!(value instanceof Date)) return String(value);
  let year = value.getUTCFullYear();
  const beforeChrist = year < 1;
  if (beforeChrist) year = 1 - year;
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${String(year).padStart(4, '0')}-${two(value.getUTCMonth() + 1)}-${two(value.getUTCDate())}` +
    `T${two(value.getUTCHours())}:${two(value.getUTCMinutes())}:${two(value.getUTCSeconds())}` +
    `.${String(value.getUTCMilliseconds()).padStart(3, '0')}+00:00${beforeChrist ? ' BC' : ''}`
  );
}

/**
 * A PGlite instance on `dataDir` with what wfapi needs: the pg_trgm and btree_gin extensions (log
 * search's index keys each line by its day and its trigrams, so a search reads only its window's
 * matching lines) and a timestamp serializer
 * PostgreSQL accepts for every Date. A directory on disk is made, and kept, private to the user.
 * `memory://` keeps the data in memory only. `image` (a `dumpDataDir` tarball) is the data to start
 * from instead of an empty cluster: it skips initdb, which is most of a new instance's start.
 */
export async function createPglite(dataDir: string, image?: Blob): Promise<PGlite> {
  const onDisk = !dataDir.startsWith('memory://');
  if (onDisk) makePrivateDirectory(dataDir);
  const db = await PGlite.create(dataDir, {
    ...(image ? { loadDataDir: image } : {}),
    // A checkpoint keeps no more than max_wal_size of old log for reuse (PGlite's default: 1 GB).
    startParams: [...PGlite.defaultStartParams, '-c', 'max_wal_size=64MB', '-c', 'min_wal_size=32MB'],
    extensions: { btree_gin, pg_trgm },
    serializers: { [TIMESTAMPTZ_OID]: serializeTimestamp, [TIMESTAMP_OID]: serializeTimestamp },
  });
  // PGlite writes some files (postgresql.conf, pg_hba.conf) world-writable.
  if (onDisk) keepPrivate(dataDir);
  return db;
}

/**
 * The embedded database in this thread: PostgreSQL compiled to WebAssembly, one connection.
 * PGlite queues concurrent queries itself; a transaction holds the connection until it ends.
 * Its queries run on the calling thread, so while one runs nothing else does: the server uses
 * `openEmbedded` (a worker thread) instead; this serves tests, tools and that worker.
 */
export async function openPglite(dataDir: string, image?: Blob): Promise<Database> {
  return pgliteDatabase(await createPglite(dataDir, image), dataDir);
}

/** The Database over an open PGlite instance on `dataDir`; closing it closes the instance. */
export function pgliteDatabase(db: PGlite, dataDir: string): Database {
  let closed = false;

  const ensureOpen = () => {
    if (closed)
      throw Object.assign(new Error('Connection terminated: database is closed'), { code: '57P01' });
  };

  const self: Database = {
    kind: 'pglite',
    async query<Row>(text: string, params?: readonly unknown[]) {
      ensureOpen();
      const result = await db.query<Row>(text, params as unknown[] | undefined);
      return result.rows;
    },
    async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      ensureOpen();
      return db.transaction(async (inner) => {
        const tx: Transaction = {
          inTransaction: true,
          async query<Row>(text: string, params?: readonly unknown[]) {
            const result = await inner.query<Row>(text, params as unknown[] | undefined);
            return result.rows;
          },
          async copyIn(table, columns, rows) {
            await inner.query(copyStatement(table, columns), [], {
              blob: new Blob([...copyChunks(rows, columns)]),
            });
          },
        };
        return fn(tx);
      });
    },
    // One thread: a running statement cannot be interrupted; the caller's timer decides.
    abortable: () => self,
    async ping() {
      ensureOpen();
      await db.query('select 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.close();
      if (!dataDir.startsWith('memory://')) keepPrivate(dataDir);
    },
  };
  return self;
}

/** The COPY statement PGlite reads rows for from the blob passed with it. */
export function copyStatement(table: string, columns: readonly string[]): string {
  return `copy ${table} (${columns.join(', ')}) from '/dev/blob'`;
}
