import type { Resolvers } from './resolver-types.generated.js';

/**
 * One domain module of the public API: its part of the schema (SDL) and the resolvers of the
 * fields it declares. Its loaders are declared beside its resolvers (see context.ts).
 */
export interface ApiModule {
  /** The module's SDL file. */
  readonly sdl: URL;
  readonly resolvers: Resolvers;
  /**
   * Part of the extended schema only (contract section 5): absent from the hosted schema, which
   * serves the hosted platform's API exactly.
   */
  readonly extended?: boolean;
}
