import type { AnyTool } from '../tool.js';
import { anomalies } from './anomalies.tool.js';
import { capabilityStats } from './capability-stats.tool.js';
import { deploymentImpact } from './deployment-impact.tool.js';
import { durationStats } from './duration-stats.tool.js';
import { errorGroups } from './error-groups.tool.js';
import { findExecutions } from './find-executions.tool.js';
import { getExecution } from './get-execution.tool.js';
import { listWorkflows } from './list-workflows.tool.js';
import { searchLogs } from './search-logs.tool.js';
import { serviceLevels } from './service-levels.tool.js';
import { workflowHealth } from './workflow-health.tool.js';

/**
 * Every tool, in the order agents see them. A tool is offered only where the schema has the root
 * fields it needs (`needs`): the hosted schema lacks the insight queries, and the verdict tools
 * wait for their queries (contract section 7).
 */
export const TOOLS: readonly AnyTool[] = [
  listWorkflows,
  workflowHealth,
  findExecutions,
  getExecution,
  errorGroups,
  searchLogs,
  durationStats,
  capabilityStats,
  deploymentImpact,
  anomalies,
  serviceLevels,
];
