/**
 * What the MCP tools read through: GraphQL documents executed against the public read API, with
 * the caller's key. Two implementations keep one source of truth for tenancy, limits and figures:
 * `/mcp` executes in process with the request's own context (in-process-executor.ts), and
 * `wfapi mcp` posts to a running server's `/graphql` (src/cli/commands/mcp). The tools never read
 * the database themselves.
 */
export interface GraphqlExecutor {
  /** The root query fields of the schema documents run against (a tool needing another is left out). */
  readonly queryFields: ReadonlySet<string>;
  /**
   * Runs one query document and resolves with its `data`; any GraphQL error (a bad input, a
   * missing workflow, a rate limit...) rejects with a GraphqlProblem carrying its code.
   */
  run<Data>(document: string, variables?: Record<string, unknown>): Promise<Data>;
}

/** An error the read API answered, by its contract code (`BAD_USER_INPUT`, `NOT_FOUND`...). */
export class GraphqlProblem extends Error {
  override readonly name = 'GraphqlProblem';

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
