import type { Database, Transaction } from '../../src/db/database.js';

/** The real database, counting the SQL statements sent through it (not a mock: every query runs). */
export function countingDatabase(db: Database) {
  const statements: string[] = [];
  const counted: Database = {
    kind: db.kind,
    query<Row>(text: string, params?: readonly unknown[]) {
      statements.push(text);
      return db.query<Row>(text, params);
    },
    transaction<T>(fn: (tx: Transaction) => Promise<T>) {
      return db.transaction((tx) =>
        fn({
          inTransaction: true,
          query<Row>(text: string, params?: readonly unknown[]) {
            statements.push(text);
            return tx.query<Row>(text, params);
          },
          copyIn(table, columns, rows) {
            statements.push(`copy ${table}`);
            return tx.copyIn(table, columns, rows);
          },
        }),
      );
    },
    // Every statement is recorded: a request's time limit does not apply here.
    abortable: () => counted,
    ping: () => db.ping(),
    close: () => db.close(),
  };
  return {
    db: counted,
    /** Statements since the previous call. */
    take(): string[] {
      return statements.splice(0);
    },
  };
}
