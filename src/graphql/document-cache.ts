import {
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  parse,
  specifiedRules,
  type VariableDefinitionNode,
  validate,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import { type KeptField, keptFieldOf } from './kept-answers.js';
import { aliasLimitRule, checkExpansion, type ExpansionLimits } from './limits.js';
import { rootFieldNames } from './root-fields.js';
import { noNulStringLiteralRule } from './string-values.js';

export interface DocumentLimits extends ExpansionLimits {
  readonly maxAliases: number;
  readonly maxTokens: number;
}

export type Prepared =
  | {
      readonly kind: 'ok';
      readonly compiled: CompiledQuery;
      readonly operation: 'query' | 'mutation' | 'subscription';
      readonly variableDefinitions: readonly VariableDefinitionNode[];
      /** The root fields it selects (see rootFieldNames): the labels of its metrics. */
      readonly rootFields: readonly string[];
      /** The kept answer it selects alone, if any (kept-answers.ts). */
      readonly kept: KeptField | undefined;
    }
  | {
      readonly kind: 'parse-error' | 'validation-error';
      readonly errors: readonly GraphQLError[];
      /** The operation asked for, when the document parsed and names one (a GET must not be a mutation). */
      readonly operation?: 'query' | 'mutation' | 'subscription';
    };

function withCode(errors: readonly GraphQLError[], code: string): GraphQLError[] {
  return errors.map(
    (error) =>
      new GraphQLError(error.message, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        path: error.path,
        extensions: { ...error.extensions, code },
      }),
  );
}

/**
 * What a cached entry holds in memory, estimated from its text, its tokens and its fields once
 * expanded, as measured with `node --expose-gc` over distinct documents of several shapes: a
 * parsed document keeps its text (twice: key and source) and about 300 bytes of AST nodes and
 * locations per token; a compiled one also holds that document, plus graphql-jit's generated
 * code and closures, about 6 kB per expanded field. The estimates err high.
 */
const BYTES_PER_CHAR = 4;
const BYTES_PER_TOKEN = 320;
const COMPILED_BYTES_PER_FIELD = 6 * 1024;
const ENTRY_OVERHEAD_BYTES = 2 * 1024;

function tokenCount(document: DocumentNode): number {
  let count = 0;
  for (let token = document.loc?.startToken; token; token = token.next ?? undefined) count += 1;
  return count;
}

interface ParsedEntry {
  readonly document?: DocumentNode;
  readonly errors?: GraphQLError[];
  /** Fields of its operations once expanded. */
  readonly fields: number;
  readonly bytes: number;
}

/**
 * Parses, validates and compiles (graphql-jit) each distinct document once. The cache is keyed
 * by document text and operation name, so a dashboard that polls the same query pays for
 * parsing and validation only on its first request. Both caches are bounded by estimated bytes,
 * not entries: distinct documents (inline values make every one distinct) and large ones cannot
 * grow memory past `maxBytes`; the least recently used entries leave first.
 */
export class DocumentCache {
  private readonly documents: LRUCache<string, ParsedEntry>;
  private readonly compiled: LRUCache<string, { prepared: Prepared; bytes: number }>;
  private readonly rules;

  constructor(
    readonly schema: GraphQLSchema,
    private readonly limits: DocumentLimits,
    maxBytes = 32 * 1024 * 1024,
  ) {
    // A quarter for parsed documents, the rest for compiled ones (several per document at most).
    this.documents = new LRUCache({
      maxSize: Math.floor(maxBytes / 4),
      sizeCalculation: (entry) => entry.bytes,
    });
    this.compiled = new LRUCache({
      maxSize: maxBytes - Math.floor(maxBytes / 4),
      sizeCalculation: (entry) => entry.bytes,
    });
    this.rules = [...specifiedRules, aliasLimitRule(limits.maxAliases), noNulStringLiteralRule];
  }

  /** Estimated bytes held by both caches. */
  get size(): number {
    return this.documents.calculatedSize + this.compiled.calculatedSize;
  }

  prepare(query: string, operationName: string | undefined): Prepared {
    const key = `${operationName ?? ''}\u0000${query}`;
    const cached = this.compiled.get(key);
    if (cached) return cached.prepared;
    const { prepared, parsed } = this.build(query, operationName);
    // A compiled query keeps its document alive, even once the parsed entry is gone.
    const bytes =
      prepared.kind === 'ok'
        ? parsed.bytes + parsed.fields * COMPILED_BYTES_PER_FIELD
        : BYTES_PER_CHAR * key.length + ENTRY_OVERHEAD_BYTES;
    this.compiled.set(key, { prepared, bytes });
    return prepared;
  }

  private build(
    query: string,
    operationName: string | undefined,
  ): { prepared: Prepared; parsed: ParsedEntry } {
    let parsed = this.documents.get(query);
    if (!parsed) {
      parsed = this.parseAndValidate(query);
      this.documents.set(query, parsed);
    }
    return { prepared: this.compile(parsed, operationName), parsed };
  }

  private compile(entry: ParsedEntry, operationName: string | undefined): Prepared {
    if (entry.errors) {
      if (!entry.document) return { kind: 'parse-error', errors: entry.errors };
      const operation = getOperationAST(entry.document, operationName)?.operation;
      return { kind: 'validation-error', errors: entry.errors, ...(operation && { operation }) };
    }
    const document = entry.document!;
    const operation = getOperationAST(document, operationName);
    if (!operation) {
      const message = operationName
        ? `Unknown operation named "${operationName}"`
        : 'Must provide operationName when the document contains several operations';
      return {
        kind: 'validation-error',
        errors: withCode([new GraphQLError(message)], 'GRAPHQL_VALIDATION_FAILED'),
      };
    }
    const compiled = compileQuery(this.schema, document, operationName, { disableLeafSerialization: false });
    if (!isCompiledQuery(compiled)) {
      return {
        kind: 'validation-error',
        errors: withCode(compiled.errors ?? [], 'GRAPHQL_VALIDATION_FAILED'),
        operation: operation.operation,
      };
    }
    return {
      kind: 'ok',
      compiled,
      operation: operation.operation,
      variableDefinitions: operation.variableDefinitions ?? [],
      rootFields: rootFieldNames(document, operation),
      kept: keptFieldOf(this.schema, document, operation),
    };
  }

  private parseAndValidate(query: string): ParsedEntry {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: this.limits.maxTokens, noLocation: false });
    } catch (error) {
      const parseError = error instanceof GraphQLError ? error : new GraphQLError('Syntax Error');
      const bytes = BYTES_PER_CHAR * query.length + ENTRY_OVERHEAD_BYTES;
      return { errors: withCode([parseError], 'GRAPHQL_PARSE_FAILED'), fields: 0, bytes };
    }
    const bytes =
      BYTES_PER_CHAR * query.length + BYTES_PER_TOKEN * tokenCount(document) + ENTRY_OVERHEAD_BYTES;
    // The expansion bounds first and alone: graphql-js's rules only ever see bounded documents.
    const expansion = checkExpansion(document, this.limits);
    const errors = expansion.errors.length
      ? expansion.errors
      : validate(this.schema, document, this.rules, { maxErrors: 20 });
    return errors.length
      ? { document, errors: withCode(errors, 'GRAPHQL_VALIDATION_FAILED'), fields: 0, bytes }
      : { document, fields: expansion.fields, bytes };
  }
}

export type { ExecutionResult };
