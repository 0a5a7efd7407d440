import type { Database, Queryable } from '../db/database.js';
import type { Principal } from './auth/authenticate.js';
import { AnswerBudget } from './shared/answer-budget.js';

/** A module's batched loaders, made for one request and scoped to its organization. */
export type LoaderFactory<T> = (db: Queryable, organizationId: string) => T;

/**
 * The loaders of one request, each made the first time a resolver asks for it: a request that
 * needs no batching (most cheap reads) builds none.
 */
export class RequestLoaders {
  private made: Map<LoaderFactory<unknown>, unknown> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly organizationId: string,
  ) {}

  of<T>(factory: LoaderFactory<T>): T {
    this.made ??= new Map();
    let loaders = this.made.get(factory) as T | undefined;
    if (loaders === undefined) {
      loaders = factory(this.db, this.organizationId);
      this.made.set(factory, loaders);
    }
    return loaders;
  }
}

/**
 * A request's context: `db` is the database its reads go to (a replica or the primary),
 * `maxAnswerBytes` the log text its answer may carry (AnswerBudget), and `completeUpTo` what that
 * database is known to hold when it is a replica, which bounds the answer's freshness
 * (`dataAsOf`) below the organization's last ingestion, and `now` the clock of windows that end now.
 */
export function createContext(
  db: Database,
  principal: Principal,
  maxAnswerBytes: number,
  completeUpTo?: Date,
  now: () => number = Date.now,
) {
  return {
    db,
    principal,
    organizationId: principal.organizationId,
    dataAsOf: earlier(principal.dataAsOf, completeUpTo),
    loaders: new RequestLoaders(db, principal.organizationId),
    answerBytes: new AnswerBudget(maxAnswerBytes),
    /** Wall-clock milliseconds (the server's clock, a test's own in tests). */
    now,
  };
}

/** The earlier of `mark` and `bound` (when there is a bound), `mark` itself when it is earlier. */
function earlier(mark: Date | null, bound: Date | undefined): Date | null {
  if (mark === null || bound === undefined || mark <= bound) return mark;
  return bound;
}

/** What every resolver receives. */
export type RequestContext = ReturnType<typeof createContext>;
