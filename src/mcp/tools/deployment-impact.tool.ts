import { z } from 'zod';
import { clip } from '../answer-size.js';
import { cutPageNote, pageAnswer, pagingOutput, uuidArgument, workflowArgument } from '../arguments.js';
import { msText, percentText, timeText } from '../text.js';
import { defineTool } from '../tool.js';
import { resolveWorkflow } from '../workflow-ref.js';

/** Contract section 7, "Deployment impact": the tool is offered once the schema has `deploymentImpact`. */
const IMPACT = `query McpDeploymentImpact($input: DeploymentImpactInput!) {
  deploymentImpact(input: $input) {
    count
    data {
      deployment { uuid status deployedAt txHash }
      verdict
      before { from to executions failures failureRate p50Ms p95Ms }
      after { from to executions failures failureRate p50Ms p95Ms }
      failureRateChange failureRatePValue durationChange durationPValue
      newErrorGroups { fingerprint pattern occurrences }
      resolvedErrorGroups { fingerprint pattern occurrences }
    }
  }
}`;

const window = z.object({
  from: z.string(),
  to: z.string(),
  executions: z.number().int(),
  failures: z.number().int(),
  failureRate: z.number().nullable(),
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
});
const group = z.object({ fingerprint: z.string(), pattern: z.string(), occurrences: z.number().int() });
type Group = z.infer<typeof group>;
const impactShape = z.object({
  deployment: z.object({
    uuid: z.string(),
    status: z.string(),
    deployedAt: z.string(),
    txHash: z.string().nullable(),
  }),
  verdict: z.string().describe('REGRESSED, IMPROVED, NO_CHANGE or INSUFFICIENT_DATA'),
  before: window,
  after: window,
  failureRateChange: z.number().nullable(),
  failureRatePValue: z.number().nullable(),
  durationChange: z.number().nullable(),
  durationPValue: z.number().nullable(),
  newErrorGroups: z.array(group),
  resolvedErrorGroups: z.array(group),
});

const MAX_GROUPS = 10;
const groups = (list: Group[]) =>
  list.slice(0, MAX_GROUPS).map((g) => ({ ...g, pattern: clip(g.pattern, 200) }));

export const deploymentImpact = defineTool({
  name: 'deployment_impact',
  title: 'Deployment impact',
  description:
    "Whether a workflow's deployments (uuid or name of the workflow; newest first, or one by deploymentUUID) changed its failure rate or median duration: the 7 days (at most) before and after each, a verdict (REGRESSED, IMPROVED, NO_CHANGE, INSUFFICIENT_DATA under 50 finished executions a side) with its p-values, and the error groups that appeared or went away.",
  input: {
    workflow: workflowArgument,
    deploymentUUID: uuidArgument('deploymentUUID').optional().describe('Only this deployment'),
    page: z.number().int().min(0, 'page counts from 0').default(0),
    pageSize: z
      .number()
      .int()
      .min(1, 'pageSize must be at least 1')
      .max(20, 'pageSize must be at most 20')
      .default(5),
  },
  output: {
    workflow: z.object({ name: z.string(), uuid: z.string() }),
    deployments: z.array(impactShape),
    ...pagingOutput,
  },
  needs: ['deploymentImpact'],
  lists: [{ key: 'deployments', note: cutPageNote('deployments') }],
  async run(args, graphql, now) {
    const workflow = await resolveWorkflow(graphql, args.workflow, now);
    const { deploymentImpact } = await graphql.run<{
      deploymentImpact: { count: number; data: Array<z.infer<typeof impactShape>> };
    }>(IMPACT, {
      input: {
        workflowUUID: workflow.uuid,
        ...(args.deploymentUUID && { deploymentUUID: args.deploymentUUID.toLowerCase() }),
        page: { number: args.page, size: args.pageSize },
      },
    });
    return {
      workflow,
      deployments: deploymentImpact.data.map((impact) => ({
        ...impact,
        newErrorGroups: groups(impact.newErrorGroups),
        resolvedErrorGroups: groups(impact.resolvedErrorGroups),
      })),
      ...pageAnswer(deploymentImpact.count, args, 'deployments'),
    };
  },
  summarize(a) {
    if (a.count === 0) return `${a.workflow.name} has no deployments.`;
    const lines = a.deployments.slice(0, 5).map((d) => {
      const failure = `failure rate ${percentText(d.before.failureRate)} -> ${percentText(d.after.failureRate)}`;
      const duration = `p50 ${msText(d.before.p50Ms)} -> ${msText(d.after.p50Ms)}`;
      const fresh = d.newErrorGroups.length
        ? `; new errors: ${d.newErrorGroups.map((g) => `"${clip(g.pattern, 80)}"`).join(', ')}`
        : '';
      return `- ${d.verdict}: deployment of ${timeText(d.deployment.deployedAt)} (${d.after.executions} executions after, ${d.before.executions} before): ${failure}, ${duration}${fresh}; uuid ${d.deployment.uuid}`;
    });
    return [`${a.workflow.name}: ${a.count} deployments, newest first:`, ...lines, a.more ?? '']
      .filter(Boolean)
      .join('\n');
  },
});
