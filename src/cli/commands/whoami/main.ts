import type { Client, QueryResult } from '../../../client/index.js';

export interface Whoami {
  readonly endpoint: string;
  readonly account: QueryResult<'getAccountDetails'>;
  readonly organization: QueryResult<'getOrganization'>;
}

/** Who the API key acts as: its member and organization, and where the API is. */
export async function whoami(client: Client): Promise<Whoami> {
  const [account, organization] = await Promise.all([client.getAccountDetails(), client.getOrganization()]);
  return { endpoint: client.endpoint, account, organization };
}
