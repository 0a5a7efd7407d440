import { instantArgument } from './arguments.js';
import type { GraphqlExecutor } from './executor.js';
import { GraphqlProblem } from './executor.js';
import { ToolArgumentError } from './tool.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Pages of names read to find an exact one among the workflows whose names contain it. */
const MAX_NAME_PAGES = 10;

export interface WorkflowRef {
  readonly uuid: string;
  readonly name: string;
}

const BY_UUID = `query McpWorkflowByUuid($input: WorkflowInput!) { workflow(input: $input) { data { uuid name } } }`;
const BY_NAME = `query McpWorkflowsByName($input: WorkflowsInput!) {
  workflows(input: $input) { count data { uuid name } } }`;

/**
 * The workflow an agent named, by uuid or by exact name (case-insensitive), read through the API
 * so that another organization's workflow is as unknown as one that does not exist. Unknown and
 * ambiguous names are a ToolArgumentError saying what to give instead.
 */
export async function resolveWorkflow(
  graphql: GraphqlExecutor,
  ref: string,
  now: number,
): Promise<WorkflowRef> {
  const text = ref.trim();
  if (UUID.test(text)) {
    try {
      const answer = await graphql.run<{ workflow: { data: WorkflowRef } }>(BY_UUID, {
        input: { uuid: text.toLowerCase(), from: new Date(now).toISOString() },
      });
      return answer.workflow.data;
    } catch (error) {
      if (error instanceof GraphqlProblem && error.code === 'NOT_FOUND') {
        throw new ToolArgumentError(
          `No workflow ${text} in this organization; list_workflows lists the workflows and their uuids.`,
        );
      }
      throw error;
    }
  }
  const wanted = text.toLowerCase();
  const exact: WorkflowRef[] = [];
  const similar: string[] = [];
  for (let page = 0; page < MAX_NAME_PAGES; page++) {
    const { workflows } = await graphql.run<{ workflows: { count: number; data: WorkflowRef[] } }>(BY_NAME, {
      input: { search: text, page: { number: page, size: 100 } },
    });
    for (const workflow of workflows.data) {
      if (workflow.name.toLowerCase() === wanted) exact.push(workflow);
      else if (similar.length < 5) similar.push(workflow.name);
    }
    if ((page + 1) * 100 >= workflows.count) break;
  }
  if (exact.length === 1) return exact[0]!;
  if (exact.length > 1) {
    throw new ToolArgumentError(
      `${exact.length} workflows are named "${text}"; give one of their uuids instead: ${exact
        .slice(0, 10)
        .map((w) => w.uuid)
        .join(', ')}.`,
    );
  }
  const hint = similar.length
    ? ` Names that contain it: ${similar.map((name) => `"${name}"`).join(', ')}.`
    : ' list_workflows lists the workflows.';
  throw new ToolArgumentError(`No workflow named "${text}" in this organization.${hint}`);
}

/** The workflow's uuid for a filter, or undefined when the agent named none. */
export async function optionalWorkflow(
  graphql: GraphqlExecutor,
  ref: string | undefined,
  now: number,
): Promise<WorkflowRef | undefined> {
  return ref === undefined ? undefined : resolveWorkflow(graphql, ref, now);
}

/** What a tool scoped to an optional workflow and window was asked for, read in that order. */
export interface Scope {
  readonly workflow: WorkflowRef | undefined;
  readonly from: string | undefined;
  readonly to: string | undefined;
}

/** The optional workflow (by uuid or name), then `from` and `to`, of a scoped tool's arguments. */
export async function scopeArguments(
  graphql: GraphqlExecutor,
  args: { readonly workflow?: string; readonly from?: string; readonly to?: string },
  now: number,
): Promise<Scope> {
  const workflow = await optionalWorkflow(graphql, args.workflow, now);
  return { workflow, from: instantArgument('from', args.from, now), to: instantArgument('to', args.to, now) };
}
