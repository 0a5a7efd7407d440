import pg from 'pg';
import type { Database, Transaction } from './database.js';

const INT8_OID = 20;

/** node-postgres returns int8 as string by default; every int8 we read (counts) fits a double. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

export interface PostgresOptions {
  poolSize: number;
  /** Server-side limit for one statement; queries past it are cancelled. */
  statementTimeoutMs: number;
  applicationName?: string;
}

export function openPostgres(url: string, options: PostgresOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs,
    application_name: options.applicationName ?? 'wfapi',
    types,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});

  return {
    kind: 'postgres',
    async query<Row>(text: string, params?: readonly unknown[]) {
      const result = await pool.query(text, params as unknown[] | undefined);
      return result.rows as Row[];
    },
    async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('begin');
        const tx: Transaction = {
          inTransaction: true,
          async query<Row>(text: string, params?: readonly unknown[]) {
            const result = await client.query(text, params as unknown[] | undefined);
            return result.rows as Row[];
          },
        };
        const value = await fn(tx);
        await client.query('commit');
        return value;
      } catch (error) {
        try {
          await client.query('rollback');
        } catch {
          broken = true;
        }
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      await pool.end();
    },
  };
}
