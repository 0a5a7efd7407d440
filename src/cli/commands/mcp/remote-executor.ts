import { type Client, WfapiError } from '../../../client/index.js';
import { type GraphqlExecutor, GraphqlProblem } from '../../../mcp/index.js';

const ROOT_FIELDS = '{ __schema { queryType { fields { name } } } }';

/**
 * The MCP tools' executor for `wfapi mcp`: each document is posted to the server's `/graphql`
 * with the key, so tenancy, limits, rate limits and figures are the server's. The schema's root
 * fields are read once, at start (a wrong key or URL fails there, before any agent talks).
 */
export async function remoteExecutor(client: Client): Promise<GraphqlExecutor> {
  const schema = await client.request<{ __schema: { queryType: { fields: Array<{ name: string }> } } }>(
    ROOT_FIELDS,
  );
  return {
    queryFields: new Set(schema.__schema.queryType.fields.map((field) => field.name)),
    async run<Data>(document: string, variables: Record<string, unknown> = {}): Promise<Data> {
      try {
        return await client.request<Data>(document, variables);
      } catch (error) {
        if (error instanceof WfapiError) throw new GraphqlProblem(error.code, error.message);
        throw error;
      }
    },
  };
}
