import type { MessagePort } from 'node:worker_threads';
import type { Database } from '../database.js';
import { connectionError } from '../db-errors.js';
import type { EmbeddedDatabase, Lease } from './embedded-database.js';
import { type ErrorData, errorData, errorFrom, type Statement } from './protocol.js';
import { runTransaction } from './run-transaction.js';

/**
 * The embedded database for another thread's background work (the demo's load): that thread's
 * statements and transactions, over a MessagePort, take their turn on the one connection after
 * the server's own (EmbeddedDatabase.lease). The other thread turns its rows into COPY text itself, so bulk loading costs
 * the request thread only the passing of messages.
 */
type PortCall =
  | { readonly op: 'lease' }
  | { readonly op: 'release' }
  | { readonly op: 'run'; readonly statement: Statement };
type PortRequest = { readonly id: number } & PortCall;
type PortReply = { readonly id: number } & ({ readonly rows: unknown[] } | { readonly error: ErrorData });

/** Serves `db` to the thread at the other end of `port`, until the port closes. */
export function serveDatabase(port: MessagePort, db: EmbeddedDatabase): void {
  let held: Lease | undefined;
  const answer = async (request: PortRequest): Promise<unknown[]> => {
    switch (request.op) {
      case 'lease':
        held = await db.lease(undefined, true);
        return [];
      case 'release':
        held?.release();
        held = undefined;
        return [];
      case 'run': {
        if (held) return held.run(request.statement);
        const lease = await db.lease(undefined, true);
        try {
          return await lease.run(request.statement);
        } finally {
          lease.release();
        }
      }
    }
  };
  port.on('message', (request: PortRequest) => {
    answer(request).then(
      (rows) => port.postMessage({ id: request.id, rows } satisfies PortReply),
      (error) => port.postMessage({ id: request.id, error: errorData(error) } satisfies PortReply),
    );
  });
  // The other thread ended while holding the connection: its transaction is rolled back.
  port.on('close', () => {
    const lease = held;
    held = undefined;
    if (lease)
      void lease
        .run({ op: 'query', text: 'rollback' })
        .catch(() => {})
        .finally(() => lease.release());
  });
}

/** The database served by `serveDatabase` at the other end of `port`. */
export function portDatabase(port: MessagePort): Database {
  const pending = new Map<number, { resolve(rows: unknown[]): void; reject(error: Error): void }>();
  let nextId = 1;
  let closed = false;
  port.on('message', (reply: PortReply) => {
    const waiting = pending.get(reply.id);
    pending.delete(reply.id);
    if ('error' in reply) waiting?.reject(errorFrom(reply.error));
    else waiting?.resolve(reply.rows);
  });
  const call = (request: PortCall): Promise<unknown[]> => {
    if (closed) return Promise.reject(connectionError('database is closed'));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      port.postMessage({ id, ...request });
    });
  };
  const run = (statement: Statement) => call({ op: 'run', statement });
  const self: Database = {
    kind: 'pglite',
    query: async <Row>(text: string, params?: readonly unknown[]) =>
      (await run({ op: 'query', text, params })) as Row[],
    async transaction(fn) {
      await call({ op: 'lease' });
      try {
        return await runTransaction(run, fn);
      } finally {
        await call({ op: 'release' });
      }
    },
    abortable: () => self,
    ping: async () => {
      await run({ op: 'query', text: 'select 1' });
    },
    async close() {
      closed = true;
      port.close();
    },
  };
  return self;
}
