import type { QueryFields, WireScalars } from '../schema/schema-types.generated.js';

/**
 * The SDK's types, all derived from the schema's generated `QueryFields`: nothing here restates
 * a field, so a schema change reaches callers' type checks through `npm run gen`.
 */

/** Scalars of inputs: as on the wire, except that a Time may also be a Date (sent as its ISO form). */
export type InputScalars = Omit<WireScalars, 'Time'> & { Time: string | Date };

export type QueryName = keyof QueryFields;

/** The arguments of a root field, e.g. `{ input: WorkflowsInput }`. */
export type QueryArgs<K extends QueryName> = QueryFields<InputScalars>[K]['args'];

/** What a root field answers, exactly as sent: Time and CreditAmount stay strings, so decimals stay exact. */
export type QueryResult<K extends QueryName> = QueryFields<WireScalars>[K]['result'];

/** The `input` argument of a root field. */
export type QueryInput<K extends QueryName> = QueryArgs<K> extends { input: infer I } ? I : never;

/** Root fields that answer one page of a list: `{ data: [...], count }` with a `page` input. */
export type PagedQueryName = {
  [K in QueryName]: QueryResult<K> extends { data: unknown[]; count: number } ? K : never;
}[QueryName];

/** One element of a paged list, e.g. `WorkflowExecution` for `workflowExecutions`. */
export type ItemOf<K extends PagedQueryName> = QueryResult<K>['data'][number];
