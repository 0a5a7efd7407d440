import {
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

/**
 * Validation rules that bound the work one document can ask for: selection depth, fields and
 * fragment spreads once every fragment is expanded, and the number of aliases. Token count is
 * bounded by the parser itself.
 *
 * The subtrees of `__schema` and `__type` do not count towards the depth: the standard
 * introspection query (GraphiQL, codegen) nests `ofType` about fifteen levels deep, and its
 * fan-out is already bounded by graphql-js's MaxIntrospectionDepthRule (part of specifiedRules).
 */
const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);

export interface ExpansionLimits {
  readonly maxDepth: number;
  /** Fields of the executed selection once every fragment spread is replaced by its fragment. */
  readonly maxFields: number;
  /** Fragment spreads met while expanding, each spread of a spread counted again. */
  readonly maxSpreads: number;
  /** Comparisons field merging may need (pairs of same-named fields, weighed by their sizes). */
  readonly maxMergeWork: number;
}

/**
 * Fields sharing one response name at one response level, with the sum and the sum of squares
 * of their expanded sizes: enough to bound the pairwise comparisons of field merging.
 */
interface NameGroup {
  size: number;
  squares: number;
}

/** What a selection set costs once expanded; totals saturate rather than overflow. */
interface Cost {
  readonly depth: number;
  readonly fields: number;
  readonly spreads: number;
  /** The fields of this response level (inline fragments flattened, fragments merged in) by name. */
  readonly level: ReadonlyMap<string, NameGroup>;
}

const NONE: Cost = { depth: 0, fields: 0, spreads: 0, level: new Map() };

const saturate = (n: number) => Math.min(n, Number.MAX_SAFE_INTEGER);

/**
 * An upper bound on the comparisons OverlappingFieldsCanBeMerged makes at one response level:
 * every pair of fields sharing a response name, each pair costing at most the product of their
 * expanded sizes (their subtrees are compared field against field).
 */
function mergeWork(level: ReadonlyMap<string, NameGroup>): number {
  let work = 0;
  for (const group of level.values()) work += (group.size * group.size - group.squares) / 2;
  return saturate(work);
}

function addGroups(into: Map<string, NameGroup>, from: ReadonlyMap<string, NameGroup>): void {
  for (const [name, group] of from) {
    const known = into.get(name);
    if (known) {
      known.size = saturate(known.size + group.size);
      known.squares = saturate(known.squares + group.squares);
    } else into.set(name, { ...group });
  }
}

/** What checking a document's expansion found: its errors, and its fields once expanded. */
export interface Expansion {
  readonly errors: readonly GraphQLError[];
  /** Fields of all its operations once expanded (saturating): the size of what gets compiled. */
  readonly fields: number;
}

/**
 * The depth, field count, spread count and field-merging work of each operation as if every
 * fragment were inlined, computed without inlining anything: each fragment's cost is computed
 * once and reused for every spread of it, so a chain of fragments that each spread the next
 * twice (2^K selections once expanded) costs K steps to measure, not 2^K. Work is linear in the
 * document's size, which the token limit bounds. Run before graphql-js's validation, so that
 * none of its rules (OverlappingFieldsCanBeMerged compares fields pairwise) ever sees a document
 * that expands past the limits.
 */
export function checkExpansion(document: DocumentNode, limits: ExpansionLimits): Expansion {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const costs = new Map<string, Cost>();
  // A fragment on the current path: a cycle, reported by the standard NoFragmentCycles rule.
  const inProgress = new Set<string>();
  // Each response level is counted once, as graphql-js checks each selection set once.
  let work = 0;

  const fragmentCost = (name: string): Cost => {
    const known = costs.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    if (!fragment || inProgress.has(name)) return NONE;
    inProgress.add(name);
    const cost = costOf(fragment.selectionSet);
    work = saturate(work + mergeWork(cost.level));
    inProgress.delete(name);
    costs.set(name, cost);
    return cost;
  };

  const costOf = (selectionSet: SelectionSetNode): Cost => {
    let depth = 0;
    let fields = 0;
    let spreads = 0;
    const level = new Map<string, NameGroup>();
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const inner = selection.selectionSet ? costOf(selection.selectionSet) : NONE;
        if (selection.selectionSet) work = saturate(work + mergeWork(inner.level));
        // Introspection subtrees add their fields and spreads, but not their depth.
        if (!INTROSPECTION_ROOTS.has(selection.name.value)) depth = Math.max(depth, 1 + inner.depth);
        const size = saturate(1 + inner.fields);
        fields = saturate(fields + size);
        spreads = saturate(spreads + inner.spreads);
        addGroups(
          level,
          new Map([[(selection.alias ?? selection.name).value, { size, squares: size * size }]]),
        );
      } else {
        const inner =
          selection.kind === Kind.INLINE_FRAGMENT
            ? costOf(selection.selectionSet)
            : fragmentCost(selection.name.value);
        if (selection.kind === Kind.FRAGMENT_SPREAD) spreads += 1;
        depth = Math.max(depth, inner.depth);
        fields = saturate(fields + inner.fields);
        spreads = saturate(spreads + inner.spreads);
        addGroups(level, inner.level);
      }
    }
    return { depth, fields, spreads, level };
  };

  const errors: GraphQLError[] = [];
  let total = 0;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const cost = costOf(definition.selectionSet);
    work = saturate(work + mergeWork(cost.level));
    total = saturate(total + cost.fields);
    const fail = (message: string) => errors.push(new GraphQLError(message, { nodes: [definition] }));
    if (cost.depth > limits.maxDepth) {
      fail(`Query depth ${cost.depth} exceeds the maximum of ${limits.maxDepth}`);
    }
    if (cost.spreads > limits.maxSpreads) {
      fail(
        `The operation expands to ${formatCount(cost.spreads)} fragment spreads, more than the maximum of ${limits.maxSpreads}`,
      );
    }
    if (cost.fields > limits.maxFields) {
      fail(
        `The operation expands to ${formatCount(cost.fields)} fields, more than the maximum of ${limits.maxFields}`,
      );
    }
  }
  // Unused fragments too: graphql-js checks their selection sets all the same.
  for (const name of fragments.keys()) fragmentCost(name);
  if (work > limits.maxMergeWork) {
    errors.push(
      new GraphQLError(
        `The document repeats fields under the same response names too often: checking that they merge would take ${formatCount(work)} comparisons, more than the maximum of ${limits.maxMergeWork}`,
      ),
    );
  }
  return { errors, fields: total };
}

const formatCount = (n: number) => (n >= Number.MAX_SAFE_INTEGER ? 'over 2^53' : String(n));

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
