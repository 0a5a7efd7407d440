// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { GraphQLScalarType, parse } from 'graphql';
import { AppError } from '../../src/errors.js';
import { DocumentCache } from '../../src/graphql/document-cache.js';
import { executeGraphqlRequest } from '../../src/graphql/execute-request.js';
import { buildExecutableSchema } from '../../src/graphql/schema.js';
import { keptAnswer } from '../../src/schema/kept-answer.js';
import { TEST_DOCUMENT_LIMITS } from './document-limits.js';
import { call } from './http-client.js';

const SDL = `
  scalar Counted
  input VerdictInput { name: String! }
  type Part { n: Int! }
  type Verdict { name: String! value: Counted! parts: [Part!]! }
  type Query { verdict(input: VerdictInput!): Verdict! other: Int }
`;

/**
 * Kept answers (src/graphql/kept-answers.ts): a root field that answers the very same object
 * for unchanged inputs has that object's rendering kept, on a schema whose one scalar counts its
 * serializations (the executor's walk of an answer), served over real HTTP.
 */
describe('kept answers', () => {
  let app: FastifyInstance;
  let url: string;
  /** Serializations of Counted: one per answer the executor walks. */
  let serialized = 0;
  let resolved = 0;
  /** What the verdict resolver answers, by name: replaced to make a new answer. */
  const answers = new Map<string, object>();
  const verdict = (name: string, value: number) => ({ name, value, parts: [{ n: value }, { n: value + 1 }] });

  before(async () => {
    const counted = new GraphQLScalarType({
      name: 'Counted',
      serialize: (value) => {
        serialized += 1;
        return value;
      },
    });
    const schema = buildExecutableSchema(
      parse(SDL),
      [
        {
          Query: {
            verdict: keptAnswer((_root: unknown, { input }: { input: { name: string } }) => {
              resolved += 1;
              if (input.name === 'refused') throw new AppError('BAD_USER_INPUT', 'no such verdict');
              return answers.get(input.name);
            }),
            other: () => 7,
          },
        },
      ],
      { Counted: counted },
    );
    const endpoint = {
      documents: new DocumentCache(schema, TEST_DOCUMENT_LIMITS),
      operations: ['query'] as const,
      timeoutMs: 5000,
      context: () => ({}),
      extensions: () => ({ dataAsOf: '2026-12-06T00:00:00.000Z' }),
    };
    app = Fastify();
    app.post('/gql', (request, reply) => executeGraphqlRequest(request, reply, request.body, endpoint));
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => app.close());
  beforeEach(() => {
    answers.set('a', verdict('a', 1));
    answers.set('b', verdict('b', 2));
  });

  const ask = (query: string, variables: Record<string, unknown> = {}) =>
    call(`${url}/gql`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  const VERDICT = 'query V($name: String!) { verdict(input: { name: $name }) { name value parts { n } } }';

  it('answers an unchanged answer with the text it wrote, resolved again but not executed again', async () => {
    const first = await ask(VERDICT, { name: 'a' });
    const [walks, resolves] = [serialized, resolved];
    const second = await ask(VERDICT, { name: 'a' });
    assert.equal(second.status, 200);
    assert.equal(second.text, first.text);
    assert.deepEqual(second.body, {
      data: { verdict: { name: 'a', value: 1, parts: [{ n: 1 }, { n: 2 }] } },
      extensions: { dataAsOf: '2026-12-06T00:00:00.000Z' },
    });
    assert.equal(resolved, resolves + 1);
    assert.equal(serialized, walks);
  });

  it('executes a new answer, and each variables and document its own rendering of one answer', async () => {
    await ask(VERDICT, { name: 'a' });
    answers.set('a', verdict('a', 5));
    const walks = serialized;
    const changed = await ask(VERDICT, { name: 'a' });
    assert.deepEqual(changed.body.data, { verdict: { name: 'a', value: 5, parts: [{ n: 5 }, { n: 6 }] } });
    assert.equal(serialized, walks + 1);
    // The very same object under another name, and under an alias: rendered apart, then kept.
    answers.set('c', answers.get('a')!);
    const aliased = 'query V($name: String!) { v: verdict(input: { name: $name }) { value } }';
    for (const [query, name, expected] of [
      [VERDICT, 'c', { verdict: { name: 'a', value: 5, parts: [{ n: 5 }, { n: 6 }] } }],
      [aliased, 'a', { v: { value: 5 } }],
    ] as const) {
      const before = serialized;
      assert.deepEqual((await ask(query, { name })).body.data, expected);
      assert.equal(serialized, before + 1, `${name} is rendered once`);
      assert.deepEqual((await ask(query, { name })).body.data, expected);
      assert.equal(serialized, before + 1, `${name} is then kept`);
    }
  });

  it("answers a resolver's error as any execution does, and keeps nothing of it", async () => {
    for (let i = 0; i < 2; i++) {
      const refused = await ask(VERDICT, { name: 'refused' });
      assert.equal(refused.status, 200);
      assert.equal(refused.body.data, null);
      assert.deepEqual(
        refused.body.errors.map((e: { path: string[] }) => e.path),
        [['verdict']],
      );
      assert.equal(refused.body.errors[0].extensions.code, 'BAD_USER_INPUT');
      assert.equal(refused.body.errors[0].message, 'no such verdict');
    }
  });

  it('executes every time an operation that selects more than the kept field alone', async () => {
    const both = 'query V($name: String!) { verdict(input: { name: $name }) { value } other }';
    const spread = 'query V($name: String!) { ... on Query { verdict(input: { name: $name }) { value } } }';
    for (const query of [both, spread]) {
      await ask(query, { name: 'b' });
      const walks = serialized;
      const again = await ask(query, { name: 'b' });
      assert.equal(again.body.data.verdict.value, 2);
      assert.equal(serialized, walks + 1, query);
    }
  });

  it('refuses to build a schema whose kept field is outside Query or reaches a field that resolves by itself', () => {
    const resolvesBelow = () =>
      buildExecutableSchema(parse(SDL), [
        { Query: { verdict: keptAnswer(() => ({})) }, Part: { n: () => 1 } },
      ]);
    assert.throws(resolvesBelow, /kept answer Query\.verdict reaches Part\.n/);
    const outside = () => buildExecutableSchema(parse(SDL), [{ Verdict: { name: keptAnswer(() => 'x') } }]);
    assert.throws(outside, /kept answer Verdict\.name is not a Query field/);
  });
});
