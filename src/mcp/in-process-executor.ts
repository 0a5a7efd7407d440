import { AppError, isDatabaseUnavailable } from '../errors.js';
import type { DocumentCache } from '../graphql/document-cache.js';
import { formatError } from '../graphql/format-error.js';
import type { TimeLimit } from '../graphql/time-limit.js';
import { variableErrors } from '../graphql/variables.js';
import type { RequestContext } from '../modules/context.js';
import { type GraphqlExecutor, GraphqlProblem } from './executor.js';

export interface InProcessOptions {
  readonly documents: DocumentCache;
  /** The admitted request's context: its organization, its reads and its share of the database. */
  readonly context: RequestContext;
  /** The request's one time limit, over every document a tool runs. */
  readonly limit: TimeLimit;
  readonly queryFields: ReadonlySet<string>;
  /** Where an unexpected error goes before it is masked (as `/graphql` masks it). */
  readonly logUnexpected: (error: unknown) => void;
}

/**
 * Executes documents the way `/graphql` does (the same cached, validated and compiled document,
 * the same variable checks, the same context and time limit, the same error masking), minus the
 * HTTP around it: the `/mcp` request was admitted once, as a `/graphql` request is.
 */
export function inProcessExecutor(options: InProcessOptions): GraphqlExecutor {
  const { documents, context, limit, logUnexpected } = options;
  return {
    queryFields: options.queryFields,
    async run<Data>(document: string, variables: Record<string, unknown> = {}): Promise<Data> {
      const prepared = documents.prepare(document, undefined);
      if (prepared.kind !== 'ok') {
        const first = formatError(prepared.errors[0]!, logUnexpected);
        throw new GraphqlProblem(first.extensions.code, first.message);
      }
      const invalid = variableErrors(documents.schema, prepared.variableDefinitions, variables);
      if (invalid.length) throw new GraphqlProblem('BAD_USER_INPUT', invalid[0]!.message);
      let result: Awaited<ReturnType<typeof prepared.compiled.query>>;
      try {
        result = await limit.run(() => prepared.compiled.query(undefined, context, variables), true);
      } catch (error) {
        if (error instanceof AppError) throw new GraphqlProblem(error.code, error.message);
        if (isDatabaseUnavailable(error))
          throw new GraphqlProblem('SERVICE_UNAVAILABLE', 'The database is unavailable; retry later');
        throw error;
      }
      if (result.errors?.length) {
        const first = formatError(result.errors[0]!, logUnexpected);
        throw new GraphqlProblem(first.extensions.code, first.message);
      }
      return result.data as Data;
    },
  };
}
