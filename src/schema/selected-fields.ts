import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import { Kind } from 'graphql';

type FragmentNamed = (name: string) => FragmentDefinitionNode | undefined;

/** Calls `onField` for each field these selection sets select directly, through fragments. */
function eachField(
  selectionSets: readonly SelectionSetNode[],
  fragmentNamed: FragmentNamed,
  onField: (field: FieldNode) => void,
): void {
  const visited = new Set<string>();
  const visit = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) onField(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragmentNamed(selection.name.value);
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  for (const selectionSet of selectionSets) visit(selectionSet);
}

/**
 * The names (never aliases) of the fields these selection sets select directly, through inline
 * fragments and fragment spreads, in the order first met. Directives are not evaluated: a field
 * under `@skip` or `@include` counts as selected, which at worst reads what is not shown.
 */
export function selectedFieldNames(
  selectionSets: readonly SelectionSetNode[],
  fragmentNamed: FragmentNamed,
): Set<string> {
  const names = new Set<string>();
  eachField(selectionSets, fragmentNamed, (field) => names.add(field.name.value));
  return names;
}

/**
 * The names of the fields selected under the field a resolver resolves (see selectedFieldNames),
 * or, given a `path` of field names, under those fields below it (every alias of each merged).
 */
export function subfieldNames(
  info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>,
  ...path: string[]
): Set<string> {
  const fragmentNamed = (name: string) => info.fragments[name];
  const setsOf = (fields: readonly FieldNode[]) =>
    fields.flatMap((field) => (field.selectionSet ? [field.selectionSet] : []));
  let selectionSets = setsOf(info.fieldNodes);
  for (const name of path) {
    const fields: FieldNode[] = [];
    eachField(selectionSets, fragmentNamed, (field) => {
      if (field.name.value === name) fields.push(field);
    });
    selectionSets = setsOf(fields);
  }
  return selectedFieldNames(selectionSets, fragmentNamed);
}
