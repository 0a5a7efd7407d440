/**
 * The typed SDK of the wfapi read API (`import { Client } from 'wfapi/client'`). Browser-safe:
 * it uses only fetch, AbortController and timers, and the types generated from the schema.
 */

export * from '../schema/schema-types.generated.js';
export { Client, type Paginators } from './client.js';
export {
  AuthenticationError,
  type GraphqlErrorEntry,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnavailableError,
  ValidationError,
  WfapiError,
} from './errors.js';
export type { EventsInput, EventsOptions, ExecutionEvent } from './events.js';
export { OBJECT_FIELDS, OPERATIONS } from './operations.generated.js';
export { MAX_PAGE_SIZE, PageIterator, type PageOf, type PageRequest } from './paged.js';
export { type ClientOptions, endpointOf, type RequestOptions } from './transport.js';
export type * from './types.js';
