// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTenant, ingest, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import {
  apikey,
  call,
  errorCode,
  GRAPHQL_RESPONSE,
  type HttpAnswer,
  JSON_TYPE,
  postGraphql,
} from './http-client.js';

type MediaType = typeof JSON_TYPE | typeof GRAPHQL_RESPONSE;

interface Case {
  readonly name: string;
  /** Sends the request with the given Authorization and Accept headers. */
  readonly send: (url: string, authorization: string, accept: MediaType) => Promise<HttpAnswer>;
  readonly status: Record<MediaType, number>;
  /** Expected error code; undefined for a success. */
  readonly code?: string;
  /** Whether the answer carries a `data` entry (request errors must not). */
  readonly data: 'absent' | 'null' | 'object';
  readonly message?: RegExp;
}

const gql = (payload: unknown) => (url: string, authorization: string, accept: MediaType) =>
  postGraphql(url, authorization, payload, { accept });

const raw =
  (body: string, contentType = JSON_TYPE) =>
  (url: string, authorization: string, accept: MediaType) =>
    call(`${url}/graphql`, { headers: { authorization, accept, 'content-type': contentType }, body });

const both = (status: number) => ({ [JSON_TYPE]: status, [GRAPHQL_RESPONSE]: status });
/** GraphQL over HTTP: request errors are 200 with application/json and 4xx with graphql-response+json. */
const requestError = { [JSON_TYPE]: 200, [GRAPHQL_RESPONSE]: 400 };

const CASES: Case[] = [
  {
    name: 'a successful query',
    send: gql({ query: '{ workflows(input: {}) { count } }' }),
    status: both(200),
    data: 'object',
  },
  {
    name: 'a document that does not parse',
    send: gql({ query: '{ workflows(input: {}) { count }' }),
    status: requestError,
    code: 'GRAPHQL_PARSE_FAILED',
    data: 'absent',
    message: /Syntax Error/,
  },
  {
    name: 'a document that does not validate',
    send: gql({ query: '{ workflows(input: {}) { total } }' }),
    status: requestError,
    code: 'GRAPHQL_VALIDATION_FAILED',
    data: 'absent',
    message: /Cannot query field "total"/,
  },
  {
    name: 'variables that do not coerce',
    send: gql({
      query: 'query ($input: WorkflowInput!) { workflow(input: $input) { data { uuid } } }',
      variables: { input: { uuid: 7, from: '2026-01-01T00:00:00Z' } },
    }),
    status: requestError,
    code: 'BAD_USER_INPUT',
    data: 'absent',
    message: /Variable "\$input" got invalid value 7 at "input.uuid"/,
  },
  {
    name: 'a missing required variable',
    send: gql({ query: 'query ($n: Int!) { workflows(input: { page: { size: $n } }) { count } }' }),
    status: requestError,
    code: 'BAD_USER_INPUT',
    data: 'absent',
    message: /Variable "\$n" of required type "Int!" was not provided/,
  },
  {
    name: 'an argument a resolver refuses (page.size over 100)',
    send: gql({ query: '{ workflows(input: { page: { size: 101 } }) { count } }' }),
    status: both(200),
    code: 'BAD_USER_INPUT',
    data: 'null',
    message: /^page\.size must be at most 100$/,
  },
  {
    name: 'a workflow that does not exist',
    send: gql({
      query:
        '{ workflow(input: { uuid: "6f1c1a4e-0000-4000-8000-000000000000", from: "2026-01-01T00:00:00Z" }) { data { uuid } } }',
    }),
    status: both(200),
    code: 'NOT_FOUND',
    data: 'null',
    message: /^workflow not found$/,
  },
  {
    name: 'a body that is not JSON',
    send: raw('{"query": "{ workflows'),
    status: both(400),
    code: 'BAD_USER_INPUT',
    data: 'absent',
    message: /not valid JSON/,
  },
  {
    name: 'an empty body',
    send: raw(''),
    status: both(400),
    code: 'BAD_USER_INPUT',
    data: 'absent',
  },
  {
    name: 'a body in another media type',
    send: raw('{ workflows(input: {}) { count } }', 'application/graphql'),
    status: both(415),
    code: 'BAD_USER_INPUT',
    data: 'absent',
    message: /Unsupported Content-Type; send application\/json/,
  },
  {
    name: 'a text/plain body holding valid JSON',
    send: raw(JSON.stringify({ query: '{ __typename }' }), 'text/plain'),
    status: both(415),
    code: 'BAD_USER_INPUT',
    data: 'absent',
  },
  {
    name: 'a body over the size limit',
    send: raw(JSON.stringify({ query: '{ __typename }', padding: 'x'.repeat(200_000) })),
    status: both(413),
    code: 'BAD_USER_INPUT',
    data: 'absent',
    message: /too large/,
  },
  {
    name: 'a batch of operations',
    send: gql([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
    status: both(400),
    code: 'BAD_USER_INPUT',
    data: 'absent',
    message: /Batched operations are not supported/,
  },
  {
    name: 'a body without a query',
    send: gql({ variables: {} }),
    status: both(400),
    code: 'BAD_USER_INPUT',
    data: 'absent',
    message: /"query" must be a non-empty string/,
  },
  {
    name: 'a missing API key',
    send: (url, _authorization, accept) =>
      postGraphql(url, undefined, { query: '{ __typename }' }, { accept }),
    status: both(401),
    code: 'UNAUTHENTICATED',
    data: 'absent',
  },
];

describe('HTTP status and media type per GraphQL over HTTP', () => {
  const ctx = useServer();

  for (const accept of [JSON_TYPE, GRAPHQL_RESPONSE] as const) {
    describe(`with Accept: ${accept}`, () => {
      for (const c of CASES) {
        it(`answers ${c.status[accept]}${c.code ? ` ${c.code}` : ''} to ${c.name}, as ${accept}`, async () => {
          const tenant = await createTenant(ctx.db);
          const answer = await c.send(ctx.server.url, apikey(tenant.key), accept);
          assert.equal(answer.status, c.status[accept], answer.text);
          assert.equal(answer.headers.get('content-type'), `${accept}; charset=utf-8`);
          if (c.code) assert.equal(errorCode(answer), c.code);
          else assert.equal(answer.body.errors, undefined, answer.text);
          if (c.message) assert.match(answer.body.errors[0].message, c.message);
          if (c.data === 'absent') assert.ok(!('data' in answer.body), answer.text);
          else if (c.data === 'null') assert.equal(answer.body.data, null);
          else assert.equal(typeof answer.body.data, 'object');
        });
      }
    });
  }

  it('answers 406 when neither JSON media type is acceptable', async () => {
    const tenant = await createTenant(ctx.db);
    for (const accept of ['text/html', 'application/xml', 'application/json;q=0']) {
      const answer = await postGraphql(
        ctx.server.url,
        apikey(tenant.key),
        { query: '{ __typename }' },
        { accept },
      );
      assert.equal(answer.status, 406, accept);
      assert.equal(errorCode(answer), 'BAD_USER_INPUT');
      assert.match(answer.body.errors[0].message, /application\/graphql-response\+json/);
    }
  });

  it('answers application/json without an Accept header, to */*, and follows q-values', async () => {
    const tenant = await createTenant(ctx.db);
    const expectations: Array<[string | undefined, MediaType]> = [
      [undefined, JSON_TYPE],
      ['*/*', JSON_TYPE],
      ['application/*', JSON_TYPE],
      [`${GRAPHQL_RESPONSE}, ${JSON_TYPE};q=0.9`, GRAPHQL_RESPONSE],
      [`${GRAPHQL_RESPONSE};q=0.5, ${JSON_TYPE}`, JSON_TYPE],
    ];
    for (const [accept, expected] of expectations) {
      const answer = await postGraphql(
        ctx.server.url,
        apikey(tenant.key),
        { query: '{ __typename }' },
        accept === undefined ? {} : { accept },
      );
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), `${expected}; charset=utf-8`, String(accept));
    }
  });

  it('answers a field error with 200, its path, and null data as the field is non-null', async () => {
    const tenant = await createTenant(ctx.db);
    await ingest(ctx.db, [workflow(tenant.organizationId, { name: 'Alpha' })]);
    const answer = await postGraphql(
      ctx.server.url,
      apikey(tenant.key),
      {
        query: `{ workflows(input: {}) { count }
                  workflowDeployment(input: { uuid: "6f1c1a4e-0000-4000-8000-000000000000" }) { data { uuid } } }`,
      },
      { accept: GRAPHQL_RESPONSE },
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.body.data, null);
    assert.equal(errorCode(answer), 'NOT_FOUND');
    assert.deepEqual(answer.body.errors[0].path, ['workflowDeployment']);
  });
});
