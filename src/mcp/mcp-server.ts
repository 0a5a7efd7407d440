import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { callTool, type McpServerOptions } from './call-tool.js';
import type { GraphqlExecutor } from './executor.js';
import { registerInvestigatePrompt } from './investigate.prompt.js';
import { registerResources } from './resources.js';
import type { AnyTool } from './tool.js';
import { TOOLS } from './tools/all-tools.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** Made once: the SDK would otherwise compile a validator per server, and `/mcp` makes one per request. */
const validator = new AjvJsonSchemaValidator();

/** The tools the executor's schema can answer: a tool whose root fields it lacks is not offered. */
export function availableTools(queryFields: ReadonlySet<string>): AnyTool[] {
  return TOOLS.filter((tool) => tool.needs.every((field) => queryFields.has(field)));
}

/**
 * An MCP server over one executor: the read-only tools its schema can answer, the workflow and
 * execution resources, and the `investigate` prompt. `/mcp` makes one per request (stateless, see
 * docs/decisions.md) and `wfapi mcp` one per process.
 */
export function createMcpServer(graphql: GraphqlExecutor, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'wfapi', title: 'wfapi: workflow executions, logs and errors', version },
    {
      jsonSchemaValidator: validator,
      instructions:
        'Read-only investigation of one organization\'s workflows: start with list_workflows or workflow_health, then find_executions, get_execution, error_groups and search_logs. The prompt "investigate" walks through an incident.',
    },
  );
  const tools = availableTools(graphql.queryFields);
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { title: tool.title, readOnlyHint: true, openWorldHint: false, idempotentHint: true },
      },
      (args: Record<string, unknown>) => callTool(tool, args, graphql, options),
    );
  }
  registerResources(server, graphql, options);
  registerInvestigatePrompt(server, new Set(tools.map((tool) => tool.name)));
  return server;
}
