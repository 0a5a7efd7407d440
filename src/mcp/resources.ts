import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GraphqlExecutor } from './executor.js';
import type { McpServerOptions } from './mcp-server.js';

export function registerResources(
  _server: McpServer,
  _graphql: GraphqlExecutor,
  _options: McpServerOptions,
): void {}
