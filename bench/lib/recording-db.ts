import type { Database, Queryable } from '../../src/db/database.js';

export interface RecordedStatement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/**
 * Wraps a database and records every statement issued through it, so that the benchmark can
 * replay exactly the SQL a GraphQL query caused, straight through the driver: the ceiling.
 */
export function recordingDatabase(db: Database): { db: Database; take(): RecordedStatement[] } {
  let recorded: RecordedStatement[] = [];
  const record = (target: Queryable): Queryable['query'] =>
    async function query<Row>(text: string, params?: readonly unknown[]) {
      recorded.push({ text, params: params ?? [] });
      return target.query<Row>(text, params);
    };
  const wrapped: Database = {
    kind: db.kind,
    query: record(db),
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({ inTransaction: true, query: record(tx), copyIn: (...args) => tx.copyIn(...args) }),
      ),
    // Every statement is recorded: a request's time limit does not apply here.
    abortable: () => wrapped,
    ping: () => db.ping(),
    close: () => db.close(),
  };
  return {
    db: wrapped,
    take() {
      const statements = recorded;
      recorded = [];
      return statements;
    },
  };
}
