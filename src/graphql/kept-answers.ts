import {
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
} from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { isKeptAnswer } from '../schema/kept-answer.js';

/**
 * Kept answers: a root field whose resolver answers the very same object while what it was made
 * of is unchanged (marked by keptAnswer, src/schema/kept-answer.ts; the verdicts keep theirs:
 * anomalies by their series, service levels by their objectives and counts) has that object's
 * rendering kept beside it. An operation that selects
 * only such a field resolves it first; when the object is one already rendered for the same
 * document and variables, the kept JSON is the answer, and the executor neither walks its
 * thousands of fields nor is the text written again. A polled dashboard's service levels are a
 * 78 KB answer rebuilt on every request otherwise, where nothing in it changed.
 *
 * The rendering is a function of the object, the document and the variables alone only if nothing
 * below the field resolves anything itself: the schema refuses a kept field whose types have
 * resolvers of their own (installKeptAnswers).
 */

/** The resolved answer of an operation's one root field, handed to the executor as the root value. */
class Answered {
  constructor(readonly answer: Promise<unknown>) {}
}

/**
 * Installs a kept field's resolver: with an Answered root it answers what was resolved ahead,
 * otherwise it resolves. Refuses a field outside Query, or one whose types resolve fields
 * themselves. Called by buildExecutableSchema once every resolver is in place.
 */
export function installKeptAnswers(schema: GraphQLSchema): void {
  const query = schema.getQueryType();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (resolve === undefined || !isKeptAnswer(resolve)) continue;
      if (type !== query) throw new Error(`kept answer ${type.name}.${field.name} is not a Query field`);
      const resolving = resolvingFieldOf(getNamedType(field.type), new Set());
      if (resolving)
        throw new Error(`kept answer Query.${field.name} reaches ${resolving}, which resolves by itself`);
      field.resolve = (root, args, context, info) =>
        root instanceof Answered ? root.answer : resolve(root, args, context, info);
      field.extensions = { ...field.extensions, keptAnswer: true };
    }
  }
}

/** A field with a resolver of its own among the types reachable from `type`, if any. */
function resolvingFieldOf(type: unknown, seen: Set<GraphQLObjectType>): string | undefined {
  if (!isObjectType(type) || seen.has(type)) return undefined;
  seen.add(type);
  for (const field of Object.values(type.getFields())) {
    if (field.resolve) return `${type.name}.${field.name}`;
    const below = resolvingFieldOf(getNamedType(field.type), seen);
    if (below) return below;
  }
  return undefined;
}

/** At most this many renderings (documents and variables) are kept beside one answer. */
const RENDERINGS_PER_ANSWER = 4;

/** The kept field an operation selects alone, with the renderings of its answers. */
export interface KeptField {
  readonly field: GraphQLField<unknown, unknown>;
  readonly node: FieldNode;
  /** What the resolver, resolving ahead, is given of `info`: the field's selection (keptAnswer). */
  readonly selection: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>;
  /** By answer, then by variables: the JSON of the operation's `data`. */
  readonly renderings: WeakMap<object, Map<string, string>>;
}

/**
 * The kept field a query operation selects as its only root selection (no fragment, no
 * directive, any alias), if any: only then is the answer all that the rendering depends on.
 */
export function keptFieldOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): KeptField | undefined {
  if (operation.operation !== 'query') return undefined;
  const [node, ...more] = operation.selectionSet.selections;
  if (more.length > 0 || node?.kind !== Kind.FIELD || (node.directives?.length ?? 0) > 0) return undefined;
  const field = schema.getQueryType()?.getFields()[node.name.value];
  if (field?.extensions.keptAnswer !== true) return undefined;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  return { field, node, selection: { fieldNodes: [node], fragments }, renderings: new WeakMap() };
}

/** What executing an operation gave: its result, or the JSON of its `data` when that was all it held. */
export type Executed = { readonly result: ExecutionResult } | { readonly data: string };

/**
 * Executes an operation of a kept field alone: the field is resolved first; an answer rendered
 * before for the same variables is answered as it was rendered, any other is executed with the
 * resolved answer (an error included, so that errors read as they always do) and its rendering
 * kept when it holds no error.
 */
export async function executeKept(
  kept: KeptField,
  compiled: CompiledQuery,
  context: unknown,
  variables: Record<string, unknown>,
  coerced: Record<string, unknown>,
): Promise<Executed> {
  const answer = (async () =>
    kept.field.resolve!(
      undefined,
      getArgumentValues(kept.field, kept.node, coerced),
      context,
      // Kept answers read nothing of `info` but the selection (keptAnswer).
      kept.selection as GraphQLResolveInfo,
    ))();
  // Only an object can be the very answer again (an error, or a value, is rendered each time).
  const resolved = await answer.catch(() => undefined);
  const object = typeof resolved === 'object' && resolved !== null ? resolved : undefined;
  const key = JSON.stringify(coerced);
  const renderings = object === undefined ? undefined : kept.renderings.get(object);
  const rendered = renderings?.get(key);
  if (rendered !== undefined) return { data: rendered };
  const result = await compiled.query(new Answered(answer), context, variables);
  if (object === undefined || result.errors?.length || result.data == null) return { result };
  const data = JSON.stringify(result.data);
  const ofAnswer = renderings ?? new Map<string, string>();
  if (ofAnswer.size >= RENDERINGS_PER_ANSWER) ofAnswer.delete(ofAnswer.keys().next().value!);
  ofAnswer.set(key, data);
  if (renderings === undefined) kept.renderings.set(object, ofAnswer);
  return { data };
}
