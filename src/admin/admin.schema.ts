import type { GraphQLSchema } from 'graphql';
import { buildExecutableSchema } from '../schema/schema.js';
import { adminSdlDocument } from '../schema/sdl.js';
import { adminResolvers } from './admin.resolvers.js';

/** The operator schema: the shared scalars and account types, admin.graphql, and its resolvers. */
export const buildAdminSchema = (): GraphQLSchema =>
  buildExecutableSchema(adminSdlDocument(), [adminResolvers]);
