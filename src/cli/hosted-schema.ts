import type { Command } from 'commander';
import type { GraphQLSchema } from 'graphql';
import type { WfapiError } from '../client/index.js';

/** What a validation message names: a type, a field of a type, or an argument or input field. */
const NAMED: ReadonlyArray<[RegExp, (match: RegExpExecArray) => [type: string, member?: string]]> = [
  [/Unknown type "(\w+)"/, (m) => [m[1]!]],
  [/Cannot query field "(\w+)" on type "(\w+)"/, (m) => [m[2]!, m[1]!]],
  [/Unknown argument "(\w+)" on field "(\w+)\.(\w+)"/, (m) => [m[2]!, m[3]!]],
  [/Field "(\w+)" is not defined by type "(\w+)"/, (m) => [m[2]!, m[1]!]],
];

function has(schema: GraphQLSchema, [type, member]: [string, string?]): boolean {
  const found = schema.getType(type);
  if (!found) return false;
  if (member === undefined) return true;
  return 'getFields' in found && member in found.getFields();
}

/**
 * The first type or field a validation error names that the extended schema has and the
 * hosted one lacks (`ErrorGroupsInput`, `Query.errorGroups`): the sign of a server started with
 * WFAPI_SCHEMA=hosted. Both schemas are read only when such an error comes.
 */
export async function extendedOnlyName(error: WfapiError): Promise<string | undefined> {
  const named = error.errors.flatMap(({ message }) =>
    NAMED.flatMap(([pattern, pick]) => {
      const match = pattern.exec(message);
      return match ? [pick(match)] : [];
    }),
  );
  if (named.length === 0) return undefined;
  const [{ buildASTSchema }, { publicSdlDocument }] = await Promise.all([
    import('graphql'),
    import('../graphql/sdl.js'),
  ]);
  const hosted = buildASTSchema(publicSdlDocument('hosted'));
  const extended = buildASTSchema(publicSdlDocument('extended'));
  const name = named.find((name) => has(extended, name) && !has(hosted, name));
  return name?.filter(Boolean).join('.');
}

/** `wfapi errors`, `wfapi keys create`: the command as typed, from commander's command. */
export function commandLine(command: Command | undefined): string {
  const names: string[] = [];
  for (let at = command; at; at = at.parent ?? undefined) names.unshift(at.name());
  return names.length > 0 ? names.join(' ') : 'this command';
}
