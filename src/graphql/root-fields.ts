import { type DocumentNode, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

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
  const names = new Set<string>();
  const visited = new Set<string>();
  const visit = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  visit(operation.selectionSet);
  return [...names].sort();
}
