import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Transaction } from './database.js';

/**
 * The embedded database: PostgreSQL compiled to WebAssembly, in-process, one connection.
 * PGlite queues concurrent queries itself; a transaction holds the connection until it ends.
 * `memory://` keeps the data in memory only.
 */
export async function openPglite(dataDir: string): Promise<Database> {
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
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
