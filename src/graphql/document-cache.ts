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
import { aliasLimitRule, depthLimitRule } from './limits.js';
import { noNulStringLiteralRule } from './string-values.js';

export interface DocumentLimits {
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxTokens: number;
}

export type Prepared =
  | {
      readonly kind: 'ok';
      readonly compiled: CompiledQuery;
      readonly operation: 'query' | 'mutation' | 'subscription';
      readonly variableDefinitions: readonly VariableDefinitionNode[];
    }
  | { readonly kind: 'parse-error' | 'validation-error'; readonly errors: readonly GraphQLError[] };

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
 * Parses, validates and compiles (graphql-jit) each distinct document once. The cache is keyed
 * by document text and operation name, so a dashboard that polls the same query pays for
 * parsing and validation only on its first request.
 */
export class DocumentCache {
  private readonly documents: LRUCache<string, { document?: DocumentNode; errors?: GraphQLError[] }>;
  private readonly compiled: LRUCache<string, Prepared>;
  private readonly rules;

  constructor(
    readonly schema: GraphQLSchema,
    private readonly limits: DocumentLimits,
    size = 1000,
  ) {
    this.documents = new LRUCache({ max: size });
    this.compiled = new LRUCache({ max: size });
    this.rules = [
      ...specifiedRules,
      depthLimitRule(limits.maxDepth),
      aliasLimitRule(limits.maxAliases),
      noNulStringLiteralRule,
    ];
  }

  prepare(query: string, operationName: string | undefined): Prepared {
    const key = `${operationName ?? ''}\u0000${query}`;
    let prepared = this.compiled.get(key);
    if (!prepared) {
      prepared = this.build(query, operationName);
      this.compiled.set(key, prepared);
    }
    return prepared;
  }

  private build(query: string, operationName: string | undefined): Prepared {
    let entry = this.documents.get(query);
    if (!entry) {
      entry = this.parseAndValidate(query);
      this.documents.set(query, entry);
    }
    if (entry.errors) {
      return { kind: entry.document ? 'validation-error' : 'parse-error', errors: entry.errors };
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
      };
    }
    return {
      kind: 'ok',
      compiled,
      operation: operation.operation,
      variableDefinitions: operation.variableDefinitions ?? [],
    };
  }

  private parseAndValidate(query: string): { document?: DocumentNode; errors?: GraphQLError[] } {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: this.limits.maxTokens, noLocation: false });
    } catch (error) {
      const parseError = error instanceof GraphQLError ? error : new GraphQLError('Syntax Error');
      return { errors: withCode([parseError], 'GRAPHQL_PARSE_FAILED') };
    }
    const errors = validate(this.schema, document, this.rules, { maxErrors: 20 });
    return errors.length ? { document, errors: withCode(errors, 'GRAPHQL_VALIDATION_FAILED') } : { document };
  }
}

export type { ExecutionResult };
