import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { formatTime, parseTime } from '../lib/time.js';
import type { WireScalars } from './schema-types.generated.js';

/** Scalars as resolvers see them: Time is a Date; the rest travel as strings. */
export type ApiScalars = Omit<WireScalars, 'Time'> & { Time: Date };

function badValue(message: string): never {
  throw new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

/** Literal errors carry the literal's location, so the client sees where its query is wrong. */
function atLiteral<T>(ast: ValueNode, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof GraphQLError)
      throw new GraphQLError(error.message, { nodes: ast, extensions: error.extensions });
    throw error;
  }
}

function timeFrom(value: unknown): Date {
  if (typeof value !== 'string') badValue('Time must be an RFC 3339 string such as "2026-08-31T14:32:18Z"');
  return (
    parseTime(value) ??
    badValue(
      `Time must be an RFC 3339 date-time with an offset, in years 0001 to 9999 UTC, got "${value.slice(0, 64)}"`,
    )
  );
}

const time = new GraphQLScalarType<Date, string>({
  name: 'Time',
  serialize: (value) => {
    if (value instanceof Date) return formatTime(value);
    if (typeof value === 'string') return formatTime(timeFrom(value));
    throw new GraphQLError('Time cannot represent a non-date value');
  },
  parseValue: timeFrom,
  parseLiteral: (ast: ValueNode) =>
    atLiteral(ast, () =>
      ast.kind === Kind.STRING ? timeFrom(ast.value) : badValue('Time must be a string'),
    ),
});

/** A decimal, sent as a JSON string so that a client never loses precision. */
const creditAmount = new GraphQLScalarType<string, string>({
  name: 'CreditAmount',
  serialize: (value) => String(value),
  parseValue: (value) =>
    typeof value === 'string' ? value : badValue('CreditAmount must be a decimal string'),
  parseLiteral: (ast) =>
    atLiteral(ast, () =>
      ast.kind === Kind.STRING ? ast.value : badValue('CreditAmount must be a decimal string'),
    ),
});

const jsonObject = new GraphQLScalarType<Record<string, unknown>, Record<string, unknown>>({
  name: 'JSONObject',
  serialize: (value) => value as Record<string, unknown>,
  parseValue: (value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : badValue('JSONObject must be an object'),
});

function stringScalar(name: string): GraphQLScalarType<string, string> {
  return new GraphQLScalarType<string, string>({
    name,
    serialize: (value) => String(value),
    parseValue: (value) => (typeof value === 'string' ? value : badValue(`${name} must be a string`)),
    parseLiteral: (ast) =>
      atLiteral(ast, () => (ast.kind === Kind.STRING ? ast.value : badValue(`${name} must be a string`))),
  });
}

const STRING_SCALARS = [
  'WorkflowId',
  'OnchainAddress',
  'ChainSelector',
  'OrganizationId',
  'TenantId',
  'MemberId',
  'UserId',
  'Email',
  'LabelText',
  'CredentialText',
  'UUID',
] as const satisfies ReadonlyArray<keyof WireScalars>;

export const scalars: Record<string, GraphQLScalarType> = Object.fromEntries([
  ['Time', time],
  ['CreditAmount', creditAmount],
  ['JSONObject', jsonObject],
  ...STRING_SCALARS.map((name) => [name, stringScalar(name)]),
]);
