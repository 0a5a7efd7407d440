export { type GraphqlExecutor, GraphqlProblem } from './executor.js';
export { registerMcpRoute } from './mcp.route.js';
export { availableTools, callTool, createMcpServer } from './mcp-server.js';
