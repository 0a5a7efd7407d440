import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';

/** A type reference written as in SDL: `String!`, `[ExecutionError]`, `[WorkflowExecution!]!`. */
export function renderTypeRef(ref: TypeRef): string {
  if (ref.kind === 'NON_NULL') return `${renderTypeRef(ref.ofType!)}!`;
  if (ref.kind === 'LIST') return `[${renderTypeRef(ref.ofType!)}]`;
  return ref.name!;
}

/**
 * The fields (object types) or input fields (input types) of a named type as served by the real
 * endpoint, each rendered `name: Type`, in declaration order. Fails when the type does not exist.
 */
export async function fieldsOf(server: TestServer, key: string, typeName: string): Promise<string[]> {
  const response = await server.gql(
    key,
    `query ($name: String!) { __type(name: $name) {
       kind fields { name type { ${TYPE_REF} } } inputFields { name type { ${TYPE_REF} } } } }`,
    { name: typeName },
  );
  const type = response.body?.data?.__type;
  if (!type) throw new Error(`type ${typeName} is not in the schema: ${JSON.stringify(response.body)}`);
  const fields: Array<{ name: string; type: TypeRef }> = type.fields ?? type.inputFields;
  return fields.map((field) => `${field.name}: ${renderTypeRef(field.type)}`);
}

/**
 * Asserts a type has exactly the fields of the contract's text for it (`name: Type, ...`, copied
 * as written), no more and no fewer, with the same nullability; declaration order is free.
 */
export async function assertContractFields(
  server: TestServer,
  key: string,
  typeName: string,
  contract: string,
): Promise<void> {
  const actual = (await fieldsOf(server, key, typeName)).sort();
  assert.deepEqual(actual, contract.split(', ').sort(), typeName);
}

/** The values of an enum as served, in declaration order. */
export async function enumValuesOf(server: TestServer, key: string, typeName: string): Promise<string[]> {
  const response = await server.gql(
    key,
    'query ($name: String!) { __type(name: $name) { enumValues { name } } }',
    { name: typeName },
  );
  const values: Array<{ name: string }> | undefined = response.body?.data?.__type?.enumValues;
  if (!values) throw new Error(`enum ${typeName} is not in the schema: ${JSON.stringify(response.body)}`);
  return values.map((value) => value.name);
}

/** Root fields of the Query type with their arguments, as served. */
export async function queryRootFields(
  server: TestServer,
  key: string,
): Promise<Array<{ name: string; args: string[]; type: string; returns: string }>> {
  const response = await server.gql(
    key,
    `{ __schema { queryType { fields { name type { ${TYPE_REF} } args { name type { ${TYPE_REF} } } } } } }`,
  );
  const fields: Array<{ name: string; type: TypeRef; args: Array<{ name: string; type: TypeRef }> }> =
    response.body.data.__schema.queryType.fields;
  return fields.map((field) => ({
    name: field.name,
    type: renderTypeRef(field.type),
    returns: namedType(field.type),
    args: field.args.map((arg) => `${arg.name}: ${renderTypeRef(arg.type)}`),
  }));
}

interface SchemaType {
  kind: string;
  name: string;
  fields: Array<{ name: string; type: TypeRef }> | null;
}

/** The type a reference names once its list and non-null wrappers are removed. */
function namedType(ref: TypeRef): string {
  return ref.ofType ? namedType(ref.ofType) : ref.name!;
}

/**
 * A selection set asking for every field of an object type, recursively, built from the served
 * schema, so that a field added later is selected (and so checked) without editing the test.
 * Leaf types get no selection set.
 */
export async function fullSelections(server: TestServer, key: string): Promise<(typeName: string) => string> {
  const response = await server.gql(
    key,
    `{ __schema { types { kind name fields { name type { ${TYPE_REF} } } } } }`,
  );
  const types = new Map<string, SchemaType>(
    (response.body.data.__schema.types as SchemaType[]).map((type) => [type.name, type]),
  );
  const selectionOf = (typeName: string): string => {
    const type = types.get(typeName);
    if (type?.kind !== 'OBJECT' || !type.fields) return '';
    return `{ ${type.fields.map((field) => `${field.name} ${selectionOf(namedType(field.type))}`.trim()).join(' ')} }`;
  };
  return selectionOf;
}
