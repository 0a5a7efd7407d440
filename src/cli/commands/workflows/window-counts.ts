import type { Client } from '../../../client/index.js';

/** What a workflow did over the window: executions started in it, and how the finished ones ended. */
export interface WindowCounts {
  readonly from: string;
  /** Executions started at or after `from`, finished or not. */
  readonly executionCount: number;
  readonly success: number;
  readonly failure: number;
  /** failure / (success + failure), or null when none finished. */
  readonly failureRate: number | null;
}

/** Aliases per request: the server's default limit (WFAPI_MAX_ALIASES). */
export const ALIASES_PER_REQUEST = 30;

interface Answer {
  readonly [alias: string]: {
    readonly data: {
      readonly uuid: string;
      readonly executionCount: number;
      readonly executionCountByStatus: { readonly success: number; readonly failure: number };
    };
  };
}

/**
 * Each workflow's counts since `from`, read with `workflow(input: {uuid, from})`: one aliased
 * field per workflow, up to 30 a request, so a hundred workflows cost four requests, not a hundred.
 */
export async function windowCounts(
  client: Client,
  uuids: readonly string[],
  from: Date,
): Promise<Map<string, WindowCounts>> {
  const chunks: string[][] = [];
  for (let i = 0; i < uuids.length; i += ALIASES_PER_REQUEST)
    chunks.push(uuids.slice(i, i + ALIASES_PER_REQUEST));
  const answers = await Promise.all(
    chunks.map((chunk) => {
      const variables = chunk.map((_, i) => `$u${i}: String!`).join(', ');
      const fields = chunk.map(
        (_, i) =>
          `w${i}: workflow(input: {uuid: $u${i}, from: $from}) { data { uuid executionCount executionCountByStatus { success failure } } }`,
      );
      return client.request<Answer>(
        `query WorkflowWindowCounts($from: Time!, ${variables}) {\n  ${fields.join('\n  ')}\n}`,
        { from: from.toISOString(), ...Object.fromEntries(chunk.map((uuid, i) => [`u${i}`, uuid])) },
      );
    }),
  );
  const counts = new Map<string, WindowCounts>();
  for (const answer of answers) {
    for (const { data } of Object.values(answer)) {
      const { success, failure } = data.executionCountByStatus;
      counts.set(data.uuid, {
        from: from.toISOString(),
        executionCount: data.executionCount,
        success,
        failure,
        failureRate: success + failure === 0 ? null : failure / (success + failure),
      });
    }
  }
  return counts;
}
