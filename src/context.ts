import type { Database, Queryable } from './db/database.js';
import type { Principal } from './modules/auth/authenticate.js';

/** A module's batched loaders, made for one request and scoped to its organization. */
export type LoaderFactory<T> = (db: Queryable, organizationId: string) => T;

/**
 * The loaders of one request, each made the first time a resolver asks for it: a request that
 * needs no batching (most cheap reads) builds none.
 */
export class RequestLoaders {
  private readonly made = new Map<LoaderFactory<unknown>, unknown>();

  constructor(
    private readonly db: Queryable,
    private readonly organizationId: string,
  ) {}

  of<T>(factory: LoaderFactory<T>): T {
    let loaders = this.made.get(factory) as T | undefined;
    if (loaders === undefined) {
      loaders = factory(this.db, this.organizationId);
      this.made.set(factory, loaders);
    }
    return loaders;
  }
}

export function createContext(db: Database, principal: Principal) {
  return {
    db,
    principal,
    organizationId: principal.organizationId,
    loaders: new RequestLoaders(db, principal.organizationId),
  };
}

/** What every resolver receives. */
export type RequestContext = ReturnType<typeof createContext>;
