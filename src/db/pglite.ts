import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { copyChunks } from './copy-text.js';
import type { Database, Transaction } from './database.js';

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
 * The embedded database: PostgreSQL compiled to WebAssembly, in-process, one connection.
 * PGlite queues concurrent queries itself; a transaction holds the connection until it ends.
 * `memory://` keeps the data in memory only.
 */
export async function openPglite(dataDir: string): Promise<Database> {
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir, {
    serializers: { [TIMESTAMPTZ_OID]: serializeTimestamp, [TIMESTAMP_OID]: serializeTimestamp },
  });
  let closed = false;

  const ensureOpen = () => {
    if (closed)
      throw Object.assign(new Error('Connection terminated: database is closed'), { code: '57P01' });
  };

  return {
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
            await inner.query(`copy ${table} (${columns.join(', ')}) from '/dev/blob'`, [], {
              blob: new Blob([...copyChunks(rows)]),
            });
          },
        };
        return fn(tx);
      });
    },
    async ping() {
      ensureOpen();
      await db.query('select 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.close();
    },
  };
}
