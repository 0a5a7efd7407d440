export { callTool } from './call-tool.js';
export { type GraphqlExecutor, GraphqlProblem } from './executor.js';
export { registerMcpRoute } from './mcp.route.js';
export { availableTools, createMcpServer } from './mcp-server.js';
