import { type DocumentNode, type GraphQLSchema, parse } from 'graphql';
import { adminPart } from '../admin/admin.resolvers.js';
import type { OperatorMutations, OperatorQueries } from '../admin/admin-context.js';
import { alertsPart } from '../alerts/alerts.resolvers.js';
import { buildExecutableSchema } from '../graphql/schema.js';
import { readSdl, SCALARS_SDL } from '../graphql/sdl.js';
import { accountsModule } from '../modules/accounts/index.js';
import { objectivesPart } from '../objectives/objectives.resolvers.js';

/**
 * The operator schema's parts (contract section 2): keys, organizations and members, then the
 * alert rules and the objectives that extend its root types. Each feature owns its part.
 */
export const OPERATOR_PARTS = [adminPart, alertsPart, objectivesPart] as const;

/** The operator schema: the scalars and account types it shares, plus its parts' own types. */
export function adminSdlDocument(): DocumentNode {
  return parse(readSdl([SCALARS_SDL, accountsModule.sdl, ...OPERATOR_PARTS.map((part) => part.sdl)]));
}

/** Every root field once; the types make a field no part resolves a compile error. */
const roots: { Query: OperatorQueries; Mutation: OperatorMutations } = {
  Query: { ...adminPart.Query, ...alertsPart.Query, ...objectivesPart.Query },
  Mutation: { ...adminPart.Mutation, ...alertsPart.Mutation, ...objectivesPart.Mutation },
};

/** The operator schema with its resolvers. */
export const buildAdminSchema = (): GraphQLSchema => buildExecutableSchema(adminSdlDocument(), [roots]);
