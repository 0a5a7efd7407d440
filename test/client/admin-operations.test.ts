// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { buildASTSchema, parse, validate } from 'graphql';
import { renderAdminOperations } from '../../scripts/gen/render-operations.js';
import { ADMIN_OPERATIONS } from '../../src/client/admin-operations.generated.js';
import { adminSdlDocument } from '../../src/operator/operator.schema.js';

describe('the admin operations', () => {
  const schema = buildASTSchema(adminSdlDocument());

  it('has one operation per root field of the admin schema, queries and mutations', () => {
    const rootFields = [schema.getQueryType()!, schema.getMutationType()!]
      .flatMap((root) => Object.keys(root.getFields()))
      .sort();
    assert.deepEqual(Object.keys(ADMIN_OPERATIONS).sort(), rootFields);
  });

  it('validates every operation against the admin schema', () => {
    for (const [name, text] of Object.entries(ADMIN_OPERATIONS)) {
      const errors = validate(schema, parse(text));
      assert.deepEqual(
        errors.map((e) => e.message),
        [],
        `${name} does not validate`,
      );
    }
  });

  it('keeps the generated file up to date with admin.graphql (run npm run gen)', () => {
    const onDisk = readFileSync(
      new URL('../../src/client/admin-operations.generated.ts', import.meta.url),
      'utf8',
    );
    assert.equal(onDisk, renderAdminOperations());
  });
});
