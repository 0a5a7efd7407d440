import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

/**
 * Validation rules that bound the work one document can ask for: selection depth (through
 * fragments) and the number of aliases. Token count is bounded by the parser itself.
 *
 * The subtrees of `__schema` and `__type` do not count towards the depth: the standard
 * introspection query (GraphiQL, codegen) nests `ofType` about fifteen levels deep, and its
 * fan-out is already bounded by graphql-js's MaxIntrospectionDepthRule (part of specifiedRules).
 */
const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);

export function depthLimitRule(maxDepth: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const depthOf = (selectionSet: SelectionSetNode, seen: Set<string>): number => {
      let deepest = 0;
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          if (INTROSPECTION_ROOTS.has(selection.name.value)) continue;
          deepest = Math.max(deepest, selection.selectionSet ? 1 + depthOf(selection.selectionSet, seen) : 1);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          deepest = Math.max(deepest, depthOf(selection.selectionSet, seen));
        } else {
          const name = selection.name.value;
          const fragment = fragments.get(name);
          // A fragment cycle is reported by the standard NoFragmentCycles rule.
          if (fragment && !seen.has(name))
            deepest = Math.max(deepest, depthOf(fragment.selectionSet, new Set(seen).add(name)));
        }
        if (deepest > maxDepth) return deepest;
      }
      return deepest;
    };
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet, new Set());
        if (depth > maxDepth) {
          context.reportError(
            new GraphQLError(`Query depth ${depth} exceeds the maximum of ${maxDepth}`, { nodes: [node] }),
          );
        }
      },
    };
  };
}

export function aliasLimitRule(maxAliases: number) {
  return (context: ValidationContext): ASTVisitor => {
    let aliases = 0;
    let reported = false;
    return {
      Field(node) {
        if (!node.alias) return;
        aliases += 1;
        if (aliases > maxAliases && !reported) {
          reported = true;
          context.reportError(
            new GraphQLError(`The document uses more than ${maxAliases} aliases`, { nodes: [node] }),
          );
        }
      },
    };
  };
}
