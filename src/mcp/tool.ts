import type { z } from 'zod';
import type { GraphqlExecutor } from './executor.js';

type Shape = z.ZodRawShape;
/** The structured answer of a tool whose output schema is `O`. */
export type AnswerOf<O extends Shape> = z.infer<z.ZodObject<O>>;
export type ArgsOf<I extends Shape> = z.infer<z.ZodObject<I>>;

/** A list of an answer that may be cut to keep the answer short, and what to tell about the cut. */
export interface CuttableList {
  /** Its key in the structured answer. */
  readonly key: string;
  /** The note for `leftOut` entries cut, naming the argument that reads them. */
  readonly note: (leftOut: number, kept: number) => string;
}

/**
 * One MCP tool: read-only, written once over a GraphqlExecutor, served by `/mcp` and `wfapi mcp`
 * alike. `run` reads through the read API and answers the structured content; `summarize` writes
 * the short text for a model from it (names before ids, times with their zone, the figures that
 * matter first).
 */
export interface ToolDefinition<I extends Shape, O extends Shape> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  /** Root query fields it reads: the tool is offered only when the schema has every one. */
  readonly needs: readonly string[];
  /** Lists cut, in this order, when the answer would pass its size bound (see fitAnswer). */
  readonly lists?: readonly CuttableList[];
  run(args: ArgsOf<I>, graphql: GraphqlExecutor, now: number): Promise<AnswerOf<O>>;
  summarize(answer: AnswerOf<O>): string;
}

/** Any tool, for lists of them. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds tools of every shape
export type AnyTool = ToolDefinition<any, any>;

export const defineTool = <I extends Shape, O extends Shape>(tool: ToolDefinition<I, O>) => tool;

/** A bad argument: answered as a tool result with `isError`, its message saying what to change. */
export class ToolArgumentError extends Error {
  override readonly name = 'ToolArgumentError';
}
