import { type AbortWatch, type Database, eitherAborted, type Transaction } from './database.js';
import { canceledError } from './db-errors.js';

interface Waiter {
  grant(): void;
}

/** One tenant's statements: how many run, and who waits for a turn, in arrival order. */
interface Share {
  running: number;
  readonly waiting: Waiter[];
}

/**
 * Bounds the database statements one tenant (an organization) runs at once, so that no tenant
 * can take the whole pool (PostgreSQL) or fill the one connection's queue (the embedded
 * database) from the others: past `perTenant` statements in flight, a tenant's next statement
 * waits for one of its own to end, while other tenants' statements go straight to the database.
 * A tenant's statements take their turns in arrival order. A statement waiting for its turn is
 * dropped once its request's time limit passes (57014, like a statement refused by the database).
 *
 * The turn is held until the database has answered or cancelled the statement (see
 * Database.abortable: both drivers stop a running statement when its request's time is up), so a
 * slow statement counts against its tenant for exactly as long as it occupies the database.
 */
export class ConcurrencyShares {
  private readonly shares = new Map<string, Share>();

  constructor(private readonly perTenant: number) {}

  /** `db` for one request of `tenant`: each statement and transaction waits for the tenant's turn. */
  forTenant(db: Database, tenant: string, signal: AbortWatch): Database {
    const take = <T>(work: () => Promise<T>): Promise<T> => this.withTurn(tenant, signal, work);
    const shared: Database = {
      kind: db.kind,
      query: (text, params) => take(() => db.query(text, params)),
      transaction: <T>(fn: (tx: Transaction) => Promise<T>) => take(() => db.transaction(fn)),
      abortable: (other) => this.forTenant(db.abortable(other), tenant, eitherAborted(signal, other)),
      ping: () => db.ping(),
      close: () => db.close(),
      ...(db.poolUse && { poolUse: db.poolUse }),
    };
    return shared;
  }

  private async withTurn<T>(tenant: string, signal: AbortWatch, work: () => Promise<T>): Promise<T> {
    const share = await this.turn(tenant, signal);
    try {
      return await work();
    } finally {
      this.release(tenant, share);
    }
  }

  private turn(tenant: string, signal: AbortWatch): Share | Promise<Share> {
    if (signal.aborted) throw canceledError();
    let share = this.shares.get(tenant);
    if (share === undefined) {
      share = { running: 0, waiting: [] };
      this.shares.set(tenant, share);
    }
    if (share.running < this.perTenant) {
      share.running++;
      return share;
    }
    const queued = share;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = queued.waiting.indexOf(waiter);
        if (index >= 0) queued.waiting.splice(index, 1);
        reject(canceledError());
      };
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(queued);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      queued.waiting.push(waiter);
    });
  }

  /** Hands the turn to the tenant's next waiter, or gives it back (forgetting an idle tenant). */
  private release(tenant: string, share: Share): void {
    const next = share.waiting.shift();
    if (next) {
      next.grant();
      return;
    }
    share.running--;
    if (share.running === 0) this.shares.delete(tenant);
  }
}
