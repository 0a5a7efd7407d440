import type { Config } from '../config.js';
import type { Database } from '../db/database.js';

/** What admin resolvers receive: the operator is trusted, so there is no principal and no scope. */
export interface AdminContext {
  readonly db: Database;
  readonly config: Config;
}

/** One resolver per root field, with arguments and result typed from admin.graphql. */
export type RootResolvers<Fields extends { [F in keyof Fields]: { args: unknown; result: unknown } }> = {
  [F in keyof Fields]: (
    parent: unknown,
    args: Fields[F]['args'],
    context: AdminContext,
  ) => Promise<Fields[F]['result']>;
};
