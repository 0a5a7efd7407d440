import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { ApiScalars } from '../schema/scalars.js';
import type { MutationFields, QueryFields } from './admin-types.generated.js';

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

/** Every root query of the operator schema, typed from its SDL parts. */
export type OperatorQueries = RootResolvers<QueryFields<ApiScalars>>;
/** Every root mutation of the operator schema, typed from its SDL parts. */
export type OperatorMutations = RootResolvers<MutationFields<ApiScalars>>;

/**
 * One part of the operator schema (contract section 2): its SDL file and the root fields it
 * resolves. The operator schema (src/operator) joins the parts; each feature owns its own.
 */
export interface OperatorPart<Q extends keyof OperatorQueries, M extends keyof OperatorMutations> {
  readonly sdl: URL;
  readonly Query: Pick<OperatorQueries, Q>;
  readonly Mutation: Pick<OperatorMutations, M>;
}
