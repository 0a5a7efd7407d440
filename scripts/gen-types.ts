/**
 * Generates src/schema/schema-types.generated.ts from the SDL: enum value lists and unions,
 * input and object types. Scalars are a type parameter, so the same declarations describe the
 * wire format (the SDK: Time is a string) and the parsed form (the server: Time is a Date);
 * and src/modules/resolver-types.generated.ts, the resolver map the modules are typed with.
 * Run `npm run gen` after changing a .graphql file; a test fails when the file is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderAdminOperations, renderOperations } from './gen/render-operations.js';
import { renderResolverTypes } from './gen/render-resolver-types.js';
import { renderAdminTypes, renderSchemaTypes } from './gen/render-types.js';

const outputs = [
  ['../src/schema/schema-types.generated.ts', renderSchemaTypes],
  ['../src/admin/admin-types.generated.ts', renderAdminTypes],
  // What each module's resolvers receive and return, with the mappers' row types.
  ['../src/modules/resolver-types.generated.ts', renderResolverTypes],
  // The SDK's documents: each root field with its full selection.
  ['../src/client/operations.generated.ts', renderOperations],
  ['../src/client/admin-operations.generated.ts', renderAdminOperations],
] as const;
for (const [path, render] of outputs) {
  const target = fileURLToPath(new URL(path, import.meta.url));
  writeFileSync(target, render());
  console.log(`wrote ${target}`);
}
