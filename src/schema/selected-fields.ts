import type { FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import { Kind } from 'graphql';

/**
 * The names (never aliases) of the fields these selection sets select directly, through inline
 * fragments and fragment spreads, in the order first met. Directives are not evaluated: a field
 * under `@skip` or `@include` counts as selected, which at worst reads what is not shown.
 */
export function selectedFieldNames(
  selectionSets: readonly SelectionSetNode[],
  fragmentNamed: (name: string) => FragmentDefinitionNode | undefined,
): Set<string> {
  const names = new Set<string>();
  const visited = new Set<string>();
  const visit = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragmentNamed(selection.name.value);
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  for (const selectionSet of selectionSets) visit(selectionSet);
  return names;
}

/** The names of the fields selected under the field a resolver resolves (see selectedFieldNames). */
export function subfieldNames(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): Set<string> {
  return selectedFieldNames(
    info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : [])),
    (name) => info.fragments[name],
  );
}
