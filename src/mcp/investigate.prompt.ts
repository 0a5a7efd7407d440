import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export function registerInvestigatePrompt(_server: McpServer, _tools: ReadonlySet<string>): void {}
