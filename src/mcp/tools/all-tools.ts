import type { AnyTool } from '../tool.js';
import { listWorkflows } from './list-workflows.tool.js';

/**
 * Every tool, in the order agents see them. A tool is offered only where the schema has the root
 * fields it needs (`needs`): the hosted schema lacks the insight queries, and the verdict tools
 * wait for their queries (contract section 7).
 */
export const TOOLS: readonly AnyTool[] = [listWorkflows];
