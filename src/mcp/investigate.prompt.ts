import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The steps from a symptom to a cause, naming only the tools this server offers. An execution uuid
 * starts from get_execution; anything else is taken for a workflow (by uuid or name).
 */
export function investigateSteps(subject: string, tools: ReadonlySet<string>): string[] {
  const quoted = JSON.stringify(subject);
  const steps: string[] = [];
  const has = (name: string) => tools.has(name);
  if (UUID.test(subject) && has('get_execution')) {
    steps.push(
      `If ${quoted} is an execution, call get_execution with uuid ${quoted}: note its workflow, its status, its errors and their fingerprints, the capability that failed, the deployment it ran on and its error log lines. (If it is not an execution, take it for a workflow.)`,
    );
  }
  if (has('workflow_health'))
    steps.push(
      `Call workflow_health for the workflow (${UUID.test(subject) ? "the execution's workflowUUID, or the subject itself" : quoted}): is it failing now, since when, how many failures in a row, and since which deployment?`,
    );
  if (has('error_groups'))
    steps.push(
      'Call error_groups for that workflow over a window that starts before the failures began (e.g. from=7d): which group dominates, when was it first seen, and does its firstSeenAt match when the failures began?',
    );
  if (has('capability_stats'))
    steps.push(
      'Call capability_stats for the workflow over the same window: which capability fails most, and did its p95 duration change?',
    );
  if (has('deployment_impact'))
    steps.push(
      'Call deployment_impact for the workflow: did a deployment REGRESS it, and which error groups appeared with it?',
    );
  else if (has('find_executions'))
    steps.push(
      "Compare the first failing execution's deployment (get_execution) with the last successful one's: if they differ, the deployment between them is the prime suspect.",
    );
  if (has('find_executions'))
    steps.push(
      'Call find_executions with errorFingerprint set to the dominant group and order=oldest: the first execution that hit it, then get_execution on it.',
    );
  if (has('search_logs'))
    steps.push(
      'Call search_logs with a distinctive part of the error message: what do the nodes log around it, and on which node?',
    );
  if (has('anomalies'))
    steps.push('Call anomalies for the workflow to see whether volume or duration moved too.');
  if (has('service_levels'))
    steps.push('Call service_levels to say how much error budget the incident has burnt.');
  steps.push(
    'Answer: failing since when (time with its zone), which error group (pattern and fingerprint), which capability, which deployment, and what the logs say, with the uuids that prove each point; say what remains uncertain.',
  );
  return steps;
}

/** The `investigate` prompt (contract section 8): one user message that walks an agent through an incident. */
export function registerInvestigatePrompt(server: McpServer, tools: ReadonlySet<string>): void {
  server.registerPrompt(
    'investigate',
    {
      title: 'Investigate an incident',
      description:
        'From a symptom to a cause: failing since when, which error group, which capability, which deployment, what the logs say',
      argsSchema: {
        subject: z.string().min(1).max(300).describe('A workflow (uuid or name) or an execution uuid'),
      },
    },
    ({ subject }) => {
      const steps = investigateSteps(subject.trim(), tools);
      return {
        description: `Investigate ${subject}`,
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: [
                `Investigate why ${JSON.stringify(subject.trim())} is failing, with the wfapi tools (read-only). Work step by step:`,
                ...steps.map((step, index) => `${index + 1}. ${step}`),
              ].join('\n'),
            },
          },
        ],
      };
    },
  );
}
