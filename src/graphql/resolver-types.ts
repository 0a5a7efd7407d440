import type { RequestContext } from '../context.js';
import type { ApiScalars } from '../schema/scalars.js';
import type { QueryFields } from '../schema/schema-types.generated.js';

type Awaitable<T> = T | Promise<T>;

/** Root field resolvers, with their arguments typed from the SDL. */
export type QueryResolvers = {
  [F in keyof QueryFields<ApiScalars>]?: (
    parent: unknown,
    args: QueryFields<ApiScalars>[F]['args'],
    context: RequestContext,
  ) => Awaitable<unknown>;
};

/** Field resolvers of an object type whose resolvers receive `Parent`. */
export type FieldResolvers<Parent> = Record<
  string,
  (parent: Parent, args: never, context: RequestContext) => unknown
>;

export interface ModuleResolvers {
  Query?: QueryResolvers;
  [typeName: string]:
    | Record<string, (parent: never, args: never, context: RequestContext) => unknown>
    | undefined;
}
