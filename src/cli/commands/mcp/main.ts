import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Client } from '../../../client/index.js';
import { createMcpServer } from '../../../mcp/index.js';
import { remoteExecutor } from './remote-executor.js';

/**
 * Serves the MCP tools over stdio (one JSON-RPC message a line on stdin and stdout) until stdin
 * closes, reading through the client's server. Nothing else is written to stdout; an unexpected
 * failure of a tool is told on stderr.
 */
export async function serveMcpOverStdio(
  client: Client,
  io: {
    stdin: NodeJS.ReadableStream;
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream;
  },
): Promise<void> {
  const graphql = await remoteExecutor(client);
  const server = createMcpServer(graphql, {
    logUnexpected: (error) =>
      io.stderr.write(`wfapi mcp: a tool failed: ${(error as Error)?.stack ?? String(error)}\n`),
  });
  const transport = new StdioServerTransport(io.stdin as never, io.stdout as never);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
    io.stdin.once('end', () => void server.close());
  });
  await server.connect(transport);
  await closed;
}
