import assert from 'node:assert/strict';
import type { ErrorCode } from '../../src/errors.js';
import type { GqlResponse } from '../harness/server.js';

/** A response's data after checking that it carries no error. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
export function dataOf(response: GqlResponse): any {
  assert.equal(response.status, 200, JSON.stringify(response.body));
  assert.equal(response.body.errors, undefined, JSON.stringify(response.body.errors));
  return response.body.data;
}

/**
 * Asserts that a response failed with exactly one error of the contract's shape, the given code and a
 * message matching `message`, and that nothing internal (stack, SQL) leaked. Returns the error.
 */
export function assertOneError(response: GqlResponse, code: ErrorCode, message?: string | RegExp) {
  const errors = response.body?.errors;
  assert.ok(Array.isArray(errors) && errors.length === 1, JSON.stringify(response.body));
  const [error] = errors;
  assert.equal(error.extensions?.code, code, JSON.stringify(error));
  assert.equal(typeof error.message, 'string');
  if (typeof message === 'string') assert.equal(error.message, message);
  else if (message) assert.match(error.message, message);
  assert.deepEqual(Object.keys(error.extensions), ['code']);
  assert.doesNotMatch(JSON.stringify(response.body), /\bat \S+:\d+|select |from \w+ where/i);
  return error;
}

/** A field error (resolver rejected its input): HTTP 200 for application/json, `data: null`. */
export function assertFieldError(response: GqlResponse, code: ErrorCode, message?: string | RegExp) {
  assert.equal(response.status, 200);
  assert.equal(response.body.data, null);
  return assertOneError(response, code, message);
}
