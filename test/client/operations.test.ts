// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { buildASTSchema, parse, validate } from 'graphql';
import { renderOperations } from '../../scripts/gen/render-operations.js';
import { OPERATIONS } from '../../src/client/operations.generated.js';
import { publicSdlDocument } from '../../src/graphql/sdl.js';

describe('the SDK operations', () => {
  const schema = buildASTSchema(publicSdlDocument());

  it('has one operation per root field of the schema', () => {
    const rootFields = Object.keys(schema.getQueryType()!.getFields()).sort();
    assert.deepEqual(Object.keys(OPERATIONS).sort(), rootFields);
  });

  it('validates every operation against the public schema', () => {
    for (const [name, text] of Object.entries(OPERATIONS)) {
      const errors = validate(schema, parse(text));
      assert.deepEqual(
        errors.map((e) => e.message),
        [],
        `${name} does not validate`,
      );
    }
  });

  it('keeps the generated file up to date with the SDL (run npm run gen)', () => {
    const onDisk = readFileSync(new URL('../../src/client/operations.generated.ts', import.meta.url), 'utf8');
    assert.equal(onDisk, renderOperations());
  });
});
