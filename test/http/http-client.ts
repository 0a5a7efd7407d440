import assert from 'node:assert/strict';

/** One HTTP answer with its raw text (for byte comparisons) and the parsed JSON when it is JSON. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
  readonly body: any;
}

export const JSON_TYPE = 'application/json';
export const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** A raw request to the server: nothing is added that the test did not ask for. */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpAnswer> {
  const response = await fetch(url, {
    method: init.method ?? 'POST',
    headers: init.headers,
    body: init.body,
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** POST /graphql with a JSON body, the given Authorization header (if any) and extra headers. */
export function postGraphql(
  baseUrl: string,
  authorization: string | undefined,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  return call(`${baseUrl}/graphql`, {
    headers: {
      'content-type': JSON_TYPE,
      ...(authorization === undefined ? {} : { authorization }),
      ...headers,
    },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

export const apikey = (key: string) => `Apikey ${key}`;

/** The first error's code, failing the test when the answer is not in the contract's error shape. */
export function errorCode(answer: HttpAnswer): string {
  assert.ok(Array.isArray(answer.body?.errors), `expected an errors array in ${answer.text}`);
  const [first] = answer.body.errors;
  assert.equal(typeof first.message, 'string');
  return first.extensions.code;
}

/**
 * Fails when an answer shows a stack frame, SQL text, a source location or the name of the
 * database driver: none of these may ever reach a client.
 */
export function assertNoInternals(answer: HttpAnswer): void {
  const text = answer.text;
  assert.doesNotMatch(text, /\bat [\w.<>]+ \(|\n\s+at |at file:/, `stack frame in ${text}`);
  assert.doesNotMatch(
    text,
    /\b(select|insert|update|delete)\b.+\b(from|into|set|where)\b/i,
    `SQL in ${text}`,
  );
  assert.doesNotMatch(text, /\.(ts|js|mjs):\d+/, `source location in ${text}`);
  assert.doesNotMatch(text, /\bpg\b|pglite|postgres|node_modules|relation "/i, `database detail in ${text}`);
}
