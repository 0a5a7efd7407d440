import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fitAnswer, MAX_ANSWER_CHARS, sizeOf } from './answer-size.js';
import { type GraphqlExecutor, GraphqlProblem } from './executor.js';
import { type AnyTool, ToolArgumentError } from './tool.js';

export interface McpServerOptions {
  /** Now, in milliseconds (tools default their windows to it and resolve durations back from it). */
  readonly now?: () => number;
  /** Where an unexpected failure of a tool goes; the agent is told only that it happened. */
  readonly logUnexpected?: (error: unknown) => void;
}

/** What an agent reads when a tool fails: what to change, or what went wrong and whether to retry. */
function problemText(error: unknown): string | undefined {
  if (error instanceof ToolArgumentError) return error.message;
  if (!(error instanceof GraphqlProblem)) return undefined;
  switch (error.code) {
    case 'BAD_USER_INPUT':
    case 'NOT_FOUND':
      return error.message;
    case 'RATE_LIMITED':
      return `The API key's rate limit is exhausted; wait a few seconds and call again. (${error.message})`;
    case 'SERVICE_UNAVAILABLE':
      return `The service is unavailable for now; call again shortly. (${error.message})`;
    default:
      return `${error.code}: ${error.message}`;
  }
}

const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/**
 * Runs a tool: its answer cut to fit MAX_ANSWER_CHARS with a note, or a tool error (`isError`)
 * whose text says what to change; never a protocol error, and no internal detail.
 */
export async function callTool(
  tool: AnyTool,
  args: Record<string, unknown>,
  graphql: GraphqlExecutor,
  options: McpServerOptions = {},
): Promise<CallToolResult> {
  try {
    const answer = await tool.run(args, graphql, options.now?.() ?? Date.now());
    const text = fitAnswer(answer, tool.lists ?? [], tool.summarize);
    if (sizeOf(answer, text) > MAX_ANSWER_CHARS) {
      return errorResult(`The answer of ${tool.name} is too long to send; narrow its arguments.`);
    }
    return { content: [{ type: 'text', text }], structuredContent: answer };
  } catch (error) {
    const text = problemText(error);
    if (text !== undefined) return errorResult(text);
    options.logUnexpected?.(error);
    return errorResult(`${tool.name} failed unexpectedly; call it again, or report it if it keeps failing.`);
  }
}
