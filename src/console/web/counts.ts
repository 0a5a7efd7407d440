import type { Client } from './api.js';

/** Aliases per request: the server's default limit (WFAPI_MAX_ALIASES) is 30. */
const ALIASES = 30;
const PER_WORKFLOW = 3;

/** A workflow's executions started in a window, and how the finished ones ended. */
export interface WindowCounts {
  readonly runs: number;
  readonly success: number;
  readonly failure: number;
}

/**
 * Each workflow's counts over exactly `[from, to]`, read with `workflowExecutions` (count only)
 * as aliased fields, ten workflows a request: what the API answers for that window, which
 * `workflow(from)` cannot say for a window that does not end now.
 */
export async function windowCounts(
  client: Client,
  uuids: readonly string[],
  from: string,
  to: string,
): Promise<Map<string, WindowCounts>> {
  const per = Math.floor(ALIASES / PER_WORKFLOW);
  const chunks: string[][] = [];
  for (let i = 0; i < uuids.length; i += per) chunks.push(uuids.slice(i, i + per));
  const answers = await Promise.all(
    chunks.map(async (chunk) => {
      const variables = chunk.map((_, i) => `$w${i}: String!`).join(', ');
      const fields = chunk.flatMap((_, i) => [
        `r${i}: workflowExecutions(input: {workflowUuid: $w${i}, from: $from, to: $to, page: {size: 1}}) { count }`,
        `s${i}: workflowExecutions(input: {workflowUuid: $w${i}, from: $from, to: $to, status: [SUCCESS], page: {size: 1}}) { count }`,
        `f${i}: workflowExecutions(input: {workflowUuid: $w${i}, from: $from, to: $to, status: [FAILURE], page: {size: 1}}) { count }`,
      ]);
      const answer = await client.request<Record<string, { count: number }>>(
        `query WindowCounts($from: Time!, $to: Time!, ${variables}) {\n  ${fields.join('\n  ')}\n}`,
        { from, to, ...Object.fromEntries(chunk.map((uuid, i) => [`w${i}`, uuid])) },
      );
      return chunk.map(
        (uuid, i) =>
          [
            uuid,
            {
              runs: answer[`r${i}`]?.count ?? 0,
              success: answer[`s${i}`]?.count ?? 0,
              failure: answer[`f${i}`]?.count ?? 0,
            },
          ] as const,
      );
    }),
  );
  return new Map(answers.flat());
}

/** failure / (success + failure), or null when none finished. */
export function failureRate(counts: WindowCounts): number | null {
  const finished = counts.success + counts.failure;
  return finished === 0 ? null : counts.failure / finished;
}
