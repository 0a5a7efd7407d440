import {
  buildASTSchema,
  type DocumentNode,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  isObjectType,
  isScalarType,
} from 'graphql';
import type { SchemaKind } from '../config.js';
import { modulesOf } from '../modules/index.js';
import { scalars } from '../schema/scalars.js';
import { installKeptAnswers } from './kept-answers.js';
import { publicSdlDocument } from './sdl.js';

/**
 * Any schema's resolvers, whatever their context: type name -> field name -> resolver. Each is
 * typed where it is written (the public modules' by resolver-types.generated.ts).
 */
type ResolverMap = object;

/**
 * Builds an executable schema from SDL, scalars and module resolvers. Fails loudly when a
 * resolver names a type or field the SDL does not have, so the two cannot drift apart.
 */
export function buildExecutableSchema(
  document: DocumentNode,
  modules: readonly ResolverMap[],
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
    for (const [typeName, fields] of Object.entries(module) as [string, object | undefined][]) {
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
  installKeptAnswers(schema);
  return schema;
}

/** The public schema of a kind: hosted (contract section 1 exactly) or extended (with section 5). */
export const buildPublicSchema = (kind: SchemaKind = 'extended') =>
  buildExecutableSchema(
    publicSdlDocument(kind),
    modulesOf(kind).map((module) => module.resolvers),
  );
