/**
 * Generates src/schema/schema-types.generated.ts from the SDL: enum value lists and unions,
 * input and object types. Scalars are a type parameter, so the same declarations describe the
 * wire format (the SDK: Time is a string) and the parsed form (the server: Time is a Date).
 * Run `npm run gen` after changing a .graphql file; a test fails when the file is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderSchemaTypes } from '../src/schema/render-types.js';

const target = fileURLToPath(new URL('../src/schema/schema-types.generated.ts', import.meta.url));
writeFileSync(target, renderSchemaTypes());
console.log(`wrote ${target}`);
