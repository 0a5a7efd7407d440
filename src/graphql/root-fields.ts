import { type DocumentNode, Kind, type OperationDefinitionNode } from 'graphql';
import { selectedFieldNames } from '../schema/selected-fields.js';

/**
 * The names (never aliases) of the root fields an operation selects, through inline fragments
 * and fragment spreads, sorted and without repeats. Only valid documents are asked, so each name
 * is a field of the schema's root type or an introspection field: a bounded set of values.
 */
export function rootFieldNames(document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [],
    ),
  );
  return [...selectedFieldNames([operation.selectionSet], (name) => fragments.get(name))].sort();
}
