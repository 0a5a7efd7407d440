import { GraphQLError, type GraphQLSchema, getVariableValues, type VariableDefinitionNode } from 'graphql';
import { containsNul, NUL_MESSAGE } from './string-values.js';

/**
 * Checks the request's variables against the operation's definitions with graphql-js, before
 * graphql-jit runs it. graphql-jit coerces again on its own, but its messages can name an input
 * field as if it were the variable (`Variable "$uuid"` for `$input.uuid`), while graphql-js names
 * the variable and the path to the bad value. No errors means the variables coerce, to `coerced`.
 */
export function coerceVariables(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
  inputs: Readonly<Record<string, unknown>>,
): { readonly errors: readonly GraphQLError[]; readonly coerced: Record<string, unknown> } {
  // Without definitions there is nothing to coerce: graphql-js ignores undeclared variables.
  if (definitions.length === 0) return { errors: [], coerced: {} };
  const coerced = getVariableValues(schema, definitions, inputs, { maxErrors: 20 });
  if (coerced.errors) return { errors: coerced.errors, coerced: {} };
  const errors: GraphQLError[] = [];
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    if (containsNul(coerced.coerced[name])) {
      errors.push(new GraphQLError(`Variable "$${name}" ${NUL_MESSAGE}`, { nodes: [definition] }));
    }
  }
  return { errors, coerced: coerced.coerced };
}

/** The errors of coerceVariables: none means the variables coerce. */
export const variableErrors = (
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
  inputs: Readonly<Record<string, unknown>>,
): readonly GraphQLError[] => coerceVariables(schema, definitions, inputs).errors;
