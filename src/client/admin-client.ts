import type { MutationFields, QueryFields } from '../admin/admin-types.generated.js';
import { ADMIN_OPERATIONS } from './admin-operations.generated.js';
import { type ClientOptions, httpUrl, type RequestOptions, Transport } from './transport.js';
import type { InputScalars } from './types.js';

/** A root field of the admin schema (contract section 2): a query or a mutation. */
export type AdminOperationName = keyof typeof ADMIN_OPERATIONS;

/** The arguments of an admin root field, e.g. `{ input: CreateOrganizationInput }`. */
export type AdminArgs<K extends AdminOperationName> = (QueryFields<InputScalars> &
  MutationFields<InputScalars>)[K]['args'];

/** What an admin root field answers, exactly as sent (Time stays a string). */
export type AdminResult<K extends AdminOperationName> = (QueryFields & MutationFields)[K]['result'];

export interface AdminClientOptions extends Omit<ClientOptions, 'apiKey'> {
  /**
   * The server's base URL, its public `/graphql` endpoint or its admin endpoint: each means
   * `<base>/admin/graphql`.
   */
  readonly url: string;
  /** The server's WFAPI_ADMIN_TOKEN, sent as `Authorization: Bearer <adminToken>`. */
  readonly adminToken: string;
  /**
   * Retries after a 429, a 5xx, a timeout or a network failure (default 0: a mutation whose
   * answer was lost may have been applied, and creating twice is not the same as once).
   */
  readonly retries?: number;
}

/**
 * The admin endpoint for a server URL, which may be the server's base URL (with a path prefix
 * behind a proxy) or its public `/graphql` endpoint:
 * `http://h:4000`, `http://h:4000/graphql` -> `http://h:4000/admin/graphql`.
 */
export function adminEndpointOf(url: string): string {
  const parsed = httpUrl(url);
  const path = parsed.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/admin/graphql')) {
    parsed.pathname = `${path.endsWith('/graphql') ? path.slice(0, -'/graphql'.length) : path}/admin/graphql`;
  }
  return parsed.toString();
}

/**
 * A typed client of the operator interface (`POST /admin/graphql`): the generated admin
 * operations over the SDK's transport, so errors are the SDK's error classes.
 *
 * ```ts
 * const admin = new AdminClient({ url: 'http://127.0.0.1:4000', adminToken: process.env.WFAPI_ADMIN_TOKEN });
 * const org = await admin.request('createOrganization', { input: { displayName: 'Acme' } });
 * ```
 */
export class AdminClient {
  /** The admin endpoint requests go to. */
  readonly endpoint: string;
  private readonly transport: Transport;

  constructor(options: AdminClientOptions) {
    this.endpoint = adminEndpointOf(options.url);
    this.transport = new Transport({
      ...options,
      retries: options.retries ?? 0,
      endpoint: this.endpoint,
      authorization: `Bearer ${options.adminToken}`,
    });
  }

  /** Runs one admin query or mutation by name and resolves with its result. */
  async request<K extends AdminOperationName>(
    name: K,
    args: AdminArgs<K>,
    options?: RequestOptions,
  ): Promise<AdminResult<K>> {
    const data = await this.transport.execute(ADMIN_OPERATIONS[name], args, options);
    return data[name] as AdminResult<K>;
  }
}
