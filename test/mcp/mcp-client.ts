import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** An MCP client of the official SDK connected to `<url>/mcp` with an API key, over real HTTP. */
export async function connectHttp(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'wfapi-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Apikey ${key}` } },
    }),
  );
  return client;
}

// biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
type Json = any;

/** A tool's answer, asserted to be no error. */
export async function callOk(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} answered an error: ${JSON.stringify(result.content)}`);
  return {
    structured: result.structuredContent as Json,
    text: (result.content[0] as { text: string }).text,
    result,
  };
}

/** A tool's error text, asserted to be a tool result with isError (never a protocol error). */
export async function callError(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError)
    throw new Error(`${name} answered no error: ${JSON.stringify(result.structuredContent)}`);
  return (result.content[0] as { text: string }).text;
}

/** The size of an answer as a client receives it: its JSON. */
export const answerSize = (result: CallToolResult) =>
  JSON.stringify({ content: result.content, structuredContent: result.structuredContent }).length;
