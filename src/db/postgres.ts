import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { sha256 } from '../lib/sha256.js';
import { copyChunks } from './copy-text.js';
import { type AbortWatch, type Database, eitherAborted, GENERIC_PLAN, type Transaction } from './database.js';
import { canceledError } from './db-errors.js';
import { timestamptzParser } from './timestamptz.js';

const INT8_OID = 20;
const TIMESTAMPTZ_OID = 1184;
/** How long past the statement timeout a query may go unanswered before its connection is given up. */
const SILENT_CONNECTION_GRACE_MS = 1_000;

const parseInt8 = (value: string) => Number(value);

const parseTimestamptz = timestamptzParser(pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text'));

/**
 * node-postgres returns int8 as string by default; every int8 we read (counts) fits a double.
 * Asked for each column of each result, so the parser is made once.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return parseInt8;
    if (oid === TIMESTAMPTZ_OID && format !== 'binary') return parseTimestamptz;
    return pg.types.getTypeParser(oid, format);
  },
};

export interface PostgresOptions {
  poolSize: number;
  /** Server-side limit for one statement; queries past it are cancelled. 0: no limit. */
  statementTimeoutMs: number;
  applicationName?: string;
  /**
   * Name parameterised statements, so that each connection parses and plans one once and then
   * only binds and executes it (default true). Turn off behind a connection pooler that does
   * not keep prepared statements per client (PgBouncer in transaction mode before 1.21).
   */
  preparedStatements?: boolean;
}

/** Distinct statement texts named at most: every store's SQL is one of a fixed, small set. */
const MAX_NAMED_STATEMENTS = 2000;
const statementNames = new Map<string, string>();

/**
 * The prepared-statement name of a statement text: the same text always gets the same name, so
 * that every pooled connection reuses its own prepared copy. Texts without parameters go
 * through the simple protocol (they may hold several statements, as migrations do) and beyond
 * the bound texts are sent unnamed, so a stray dynamic text cannot grow memory for ever.
 */
export function statementName(text: string, params: readonly unknown[] | undefined): string | undefined {
  if (params === undefined) return undefined;
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `wfapi_${sha256(text).toString('hex').slice(0, 32)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * A pooled connection whose session is set up before the pool hands it out. No JIT compilation:
 * every query here is a short index read, but on a large table the planner's estimate for a
 * branch that never runs can cross jit_above_cost, and compiling then costs milliseconds (14 ms
 * measured at ten million executions, for a 0.2 ms query). The setting is awaited as part of
 * connecting: sent from the pool's 'connect' event instead, it would share the connection with
 * the first query (node-postgres's "already executing a query" warning, an error in pg 9). Not a
 * startup parameter, which PgBouncer refuses; a server without JIT (before 11) refuses it, harmlessly.
 */
class SessionClient extends pg.Client {
  /** The session's plan_cache_mode as this client last set it: `default` is the server's own. */
  planMode: PlanMode = 'default';

  override connect(): Promise<pg.Client>;
  override connect(callback: (error: Error) => void): void;
  override connect(callback?: (error: Error) => void): Promise<pg.Client> | undefined {
    const ready = super.connect().then(() => this.turnJitOff());
    if (!callback) return ready;
    ready.then(() => callback(null as unknown as Error), callback);
    return undefined;
  }

  /**
   * `set jit = off`, with the connection watched meanwhile (watchLoss): the pool listens for a
   * connection's errors only once connecting is done. Lost, the connection fails to connect; a
   * refused setting is harmless.
   */
  private async turnJitOff(): Promise<pg.Client> {
    const watch = watchLoss(this);
    try {
      await this.query('set jit = off').catch(() => {});
    } finally {
      watch.stop();
    }
    const lost = watch.lost();
    if (lost) throw lost;
    return this;
  }
}

/**
 * Watches a connection outside the pool's error handling (being set up, or checked out) until
 * `stop`: losing it makes node-postgres emit 'error' on the client, which with no listener ends
 * the process (a server's open requests then end in ECONNRESET instead of 503). The statement
 * under way rejects on its own; `lost` tells the caller not to reuse the connection.
 */
function watchLoss(client: pg.Client): { readonly lost: () => Error | undefined; readonly stop: () => void } {
  let lost: Error | undefined;
  const onLost = (error: Error) => {
    lost = error;
  };
  client.on('error', onLost);
  return { lost: () => lost, stop: () => client.off('error', onLost) };
}

type PlanMode = 'default' | 'generic';
/** A pooled connection: always a SessionClient. */
type PooledSession = pg.PoolClient & Pick<SessionClient, 'planMode'>;

/**
 * Puts the session in `mode` unless it is there already (a round trip only when a connection
 * changes from one kind of statement to the other). A server that refuses the setting (before
 * PostgreSQL 12) keeps its own plan choice, and is not asked again on this connection.
 */
async function enterPlanMode(client: PooledSession, mode: PlanMode): Promise<void> {
  if (client.planMode === mode) return;
  client.planMode = mode;
  await client
    .query(mode === 'generic' ? 'set plan_cache_mode = force_generic_plan' : 'reset plan_cache_mode')
    .catch(() => {});
}

export function openPostgres(url: string, options: PostgresOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs,
    // The server cancels a slow statement itself; this client-side bound catches a connection
    // that went silently dead (network partition), which would otherwise hold its query, and its
    // pool slot, forever. Such a client is then discarded and the next query reconnects.
    query_timeout:
      options.statementTimeoutMs === 0 ? 0 : options.statementTimeoutMs + SILENT_CONNECTION_GRACE_MS,
    application_name: options.applicationName ?? 'wfapi',
    types,
    Client: SessionClient,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const named = options.preparedStatements ?? true;
  const config = (text: string, params: readonly unknown[] | undefined): pg.QueryConfig => ({
    text,
    values: params as unknown[] | undefined,
    name: named ? statementName(text, params) : undefined,
  });

  // Generic plans need prepared statements: unnamed ones are planned for each execution anyway.
  const modeOf = (text: string): PlanMode => (named && text.startsWith(GENERIC_PLAN) ? 'generic' : 'default');

  /**
   * What pool.query does, with the session's plan mode set first (a connection is shared by
   * statements that want generic plans and statements that must not have them), and, with
   * `signal`, the statement cancelled on the server once it aborts: a request cut by its time
   * limit does not leave its statement running until statement_timeout.
   */
  async function run<Row>(text: string, params: readonly unknown[] | undefined, signal?: AbortWatch) {
    const client = (await pool.connect()) as PooledSession;
    const watch = watchLoss(client);
    let failed: Error | undefined;
    const onAbort = () => {
      // The cancel request may land after this statement ended: the connection is then not
      // reused, so that it can never cancel another statement.
      failed ??= canceledError();
      cancelStatement(url, client);
    };
    try {
      if (signal?.aborted) throw canceledError();
      signal?.addEventListener('abort', onAbort, { once: true });
      await enterPlanMode(client, modeOf(text));
      const result = await client.query(config(text, params));
      return result.rows as Row[];
    } catch (error) {
      failed ??= error as Error;
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      watch.stop();
      // As pool.query: a connection whose statement failed, or that was lost, is not reused.
      client.release(failed ?? watch.lost());
    }
  }

  const self: Database = {
    kind: 'postgres',
    query: <Row>(text: string, params?: readonly unknown[]) => run<Row>(text, params),
    async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      const client = (await pool.connect()) as PooledSession;
      // Watched before the first statement, the plan mode's.
      const watch = watchLoss(client);
      /** The rollback failed: the connection is not reused. */
      let broken = false;
      try {
        await enterPlanMode(client, 'default');
        await client.query('begin');
        const tx: Transaction = {
          inTransaction: true,
          async query<Row>(text: string, params?: readonly unknown[]) {
            const result = await client.query(config(text, params));
            return result.rows as Row[];
          },
          async copyIn(table, columns, rows) {
            const stream = client.query(copyFrom(`copy ${table} (${columns.join(', ')}) from stdin`));
            await pipeline(Readable.from(copyChunks(rows, columns)), stream);
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
        watch.stop();
        client.release(broken || watch.lost() !== undefined);
      }
    },
    abortable: (signal) => new AbortablePostgres(self, run, signal),
    async ping() {
      await pool.query('select 1');
    },
    poolUse: () => ({
      open: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: options.poolSize,
    }),
    async close() {
      await pool.end();
    },
  };
  return self;
}

type RunStatement = <Row>(
  text: string,
  params: readonly unknown[] | undefined,
  signal?: AbortWatch,
) => Promise<Row[]>;

/**
 * Asks the server to cancel what `client` runs now, over a connection of its own (PostgreSQL's
 * cancel request: no pool slot, no authentication). Best effort: a failure to reach the server
 * leaves the statement to statement_timeout.
 */
function cancelStatement(url: string, client: pg.PoolClient): void {
  const { processID, secretKey } = client as pg.PoolClient & { processID: number; secretKey: number };
  const canceller = new pg.Client({ connectionString: url }) as pg.Client & {
    connection: CancelConnection;
  };
  const { connection, host, port } = canceller;
  connection.on('error', () => {});
  connection.on('connect', () => connection.cancel(processID, secretKey));
  if (host.startsWith('/')) connection.connect(`${host}/.s.PGSQL.${port}`);
  else connection.connect(port, host);
}

/** The parts of node-postgres's untyped protocol connection that send a cancel request. */
interface CancelConnection {
  on(event: 'error' | 'connect', listener: () => void): void;
  connect(port: number | string, host?: string): void;
  cancel(processID: number, secretKey: number): void;
}

/**
 * The pool for one request: once `signal` aborts, its running statement is cancelled on the
 * server and the caller starts none. A class rather than a copy of the pool's handle with
 * three closures, since every request makes one.
 */
class AbortablePostgres implements Database {
  readonly kind = 'postgres';

  constructor(
    private readonly pool: Database,
    private readonly run: RunStatement,
    private readonly signal: AbortWatch,
  ) {}

  get poolUse(): Database['poolUse'] {
    return this.pool.poolUse;
  }

  query<Row>(text: string, params?: readonly unknown[]): Promise<Row[]> {
    return this.signal.aborted ? Promise.reject(canceledError()) : this.run<Row>(text, params, this.signal);
  }

  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.signal.aborted ? Promise.reject(canceledError()) : this.pool.transaction(fn);
  }

  abortable(other: AbortWatch): Database {
    return this.pool.abortable(eitherAborted(this.signal, other));
  }

  ping(): Promise<void> {
    return this.pool.ping();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
