import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { callTool, type McpServerOptions } from './call-tool.js';
import type { GraphqlExecutor } from './executor.js';
import type { AnyTool } from './tool.js';
import { getExecution } from './tools/get-execution.tool.js';
import { listWorkflows } from './tools/list-workflows.tool.js';
import { workflowHealth } from './tools/workflow-health.tool.js';

/** Workflows listed as resources (the first page of list_workflows; the rest are read by uri). */
const LISTED_WORKFLOWS = 100;

/**
 * `wfapi://workflows/{uuid}` (the workflow's health, as workflow_health answers it) and
 * `wfapi://executions/{uuid}` (as get_execution answers it): the same bounded answers, as JSON a
 * host can attach to a conversation. An unknown uuid is the protocol's invalid-params error.
 */
export function registerResources(
  server: McpServer,
  graphql: GraphqlExecutor,
  options: McpServerOptions,
): void {
  const read = async (tool: AnyTool, uri: URL, args: Record<string, unknown>) => {
    const result = await callTool(tool, args, graphql, options);
    if (result.isError) {
      const text = result.content[0]?.type === 'text' ? result.content[0].text : 'unreadable';
      throw new McpError(ErrorCode.InvalidParams, `${uri.href}: ${text}`);
    }
    return {
      contents: [
        { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(result.structuredContent) },
      ],
    };
  };
  const uuidOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';

  if (workflowHealth.needs.every((field) => graphql.queryFields.has(field))) {
    server.registerResource(
      'workflow',
      new ResourceTemplate('wfapi://workflows/{uuid}', {
        list: async () => {
          const result = await callTool(
            listWorkflows,
            { page: 0, pageSize: LISTED_WORKFLOWS },
            graphql,
            options,
          );
          const workflows = (result.structuredContent?.workflows ?? []) as Array<{
            uuid: string;
            name: string;
          }>;
          return {
            resources: workflows.map((workflow) => ({
              uri: `wfapi://workflows/${workflow.uuid}`,
              name: workflow.name,
              mimeType: 'application/json',
            })),
          };
        },
      }),
      {
        title: 'Workflow health',
        description: "A workflow's health over the last 24 hours, as workflow_health answers it",
        mimeType: 'application/json',
      },
      (uri, variables) => read(workflowHealth, uri, { workflow: uuidOf(variables.uuid) }),
    );
  }
  if (getExecution.needs.every((field) => graphql.queryFields.has(field))) {
    server.registerResource(
      'execution',
      new ResourceTemplate('wfapi://executions/{uuid}', { list: undefined }),
      {
        title: 'Execution',
        description:
          'An execution with its errors, capability timeline, deployment and log lines, as get_execution answers it',
        mimeType: 'application/json',
      },
      (uri, variables) => {
        const uuid = uuidOf(variables.uuid);
        if (!/^[0-9a-f-]{36}$/i.test(uuid))
          throw new McpError(ErrorCode.InvalidParams, `${uri.href}: not an execution uuid`);
        return read(getExecution, uri, { uuid });
      },
    );
  }
}
