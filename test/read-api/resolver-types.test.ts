// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { isObjectType } from 'graphql';
import { MAPPERS, renderResolverTypes } from '../../scripts/gen/render-resolver-types.js';
import { buildPublicSchema } from '../../src/graphql/schema.js';
import { modulesOf } from '../../src/modules/index.js';

describe('resolver types', () => {
  it('keeps the generated file up to date with the SDL and the mappers (run npm run gen)', () => {
    const onDisk = readFileSync(
      new URL('../../src/modules/resolver-types.generated.ts', import.meta.url),
      'utf8',
    );
    assert.equal(onDisk, renderResolverTypes());
  });

  for (const kind of ['hosted', 'extended'] as const) {
    it(`resolves every root field of the ${kind} schema, and names only fields it has`, () => {
      // buildPublicSchema throws on a resolver of a type or field the SDL lacks.
      const schema = buildPublicSchema(kind);
      const unresolved = Object.values(schema.getQueryType()!.getFields())
        .filter((field) => field.resolve === undefined)
        .map((field) => field.name);
      assert.deepEqual(unresolved, []);
    });
  }

  it('maps only object types of the schema, each given resolvers by some module or read ahead whole', () => {
    const schema = buildPublicSchema('extended');
    const resolvedTypes = new Set(modulesOf('extended').flatMap((module) => Object.keys(module.resolvers)));
    for (const [typeName, mapper] of Object.entries(MAPPERS)) {
      assert.ok(isObjectType(schema.getType(typeName)), typeName);
      if (mapper.readAhead)
        assert.ok(!resolvedTypes.has(typeName), `${typeName} is read ahead but a module resolves its fields`);
      else assert.ok(resolvedTypes.has(typeName), `${typeName} is mapped but no module resolves its fields`);
    }
  });
});
