import {
  buildASTSchema,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  isObjectType,
  isScalarType,
} from 'graphql';
import type { ModuleResolvers } from '../graphql/resolver-types.js';
import { accountsResolvers } from '../modules/accounts/accounts.resolvers.js';
import { activityResolvers } from '../modules/activity/activity.resolvers.js';
import { deploymentsResolvers } from '../modules/deployments/deployments.resolvers.js';
import { executionsResolvers } from '../modules/executions/executions.resolvers.js';
import { workflowsResolvers } from '../modules/workflows/workflows.resolvers.js';
import { scalars } from './scalars.js';
import { publicSdlDocument } from './sdl.js';

const MODULES: readonly ModuleResolvers[] = [
  accountsResolvers,
  workflowsResolvers,
  activityResolvers,
  deploymentsResolvers,
  executionsResolvers,
];

/** Any module's resolvers, whatever their context: type name -> field name -> resolver. */
type ResolverMap = Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>;

/**
 * Builds an executable schema from SDL, scalars and module resolvers. Fails loudly when a
 * resolver names a type or field the SDL does not have, so the two cannot drift apart.
 */
export function buildExecutableSchema(
  document = publicSdlDocument(),
  modules: readonly ResolverMap[] = MODULES,
  scalarTypes = scalars,
): GraphQLSchema {
  const schema = buildASTSchema(document);
  for (const type of Object.values(schema.getTypeMap())) {
    const scalar = scalarTypes[type.name];
    if (isScalarType(type) && scalar) {
      type.serialize = scalar.serialize;
      type.parseValue = scalar.parseValue;
      type.parseLiteral = scalar.parseLiteral;
    }
  }
  for (const module of modules) {
    for (const [typeName, fields] of Object.entries(module)) {
      const type = schema.getType(typeName);
      if (!isObjectType(type)) throw new Error(`resolvers for unknown type ${typeName}`);
      const typeFields = type.getFields();
      for (const [fieldName, resolve] of Object.entries(fields ?? {})) {
        const field = typeFields[fieldName];
        if (!field) throw new Error(`resolver for unknown field ${typeName}.${fieldName}`);
        field.resolve = resolve as unknown as GraphQLFieldResolver<unknown, unknown>;
      }
    }
  }
  return schema;
}

export const buildPublicSchema = () => buildExecutableSchema();
