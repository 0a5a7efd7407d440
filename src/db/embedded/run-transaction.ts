import { copyChunks } from '../copy-text.js';
import type { Transaction } from '../database.js';
import { copyStatement } from '../pglite.js';
import type { Statement } from './protocol.js';

/** Sends one statement on a connection held by the caller; resolves with its rows. */
export type RunStatement = (statement: Statement) => Promise<unknown[]>;

/**
 * Runs `fn` in a transaction on a connection the caller holds for its whole length: begin,
 * `fn`'s statements, then commit, or rollback when `fn` throws. COPY rows are turned into COPY
 * text on the calling thread, so the database's thread only loads them.
 */
export async function runTransaction<T>(run: RunStatement, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  await run({ op: 'query', text: 'begin' });
  const tx: Transaction = {
    inTransaction: true,
    async query<Row>(text: string, params?: readonly unknown[]) {
      return (await run({ op: 'query', text, params })) as Row[];
    },
    async copyIn(table, columns, rows) {
      await run({ op: 'copy', text: copyStatement(table, columns), chunks: [...copyChunks(rows, columns)] });
    },
  };
  let value: T;
  try {
    value = await fn(tx);
  } catch (error) {
    await run({ op: 'query', text: 'rollback' }).catch(() => {});
    throw error;
  }
  await run({ op: 'query', text: 'commit' });
  return value;
}
