import { type Client, NotFoundError } from '../client/index.js';
import { CliError, EXIT } from './exit-codes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface WorkflowRef {
  readonly uuid: string;
  readonly name: string;
}

/**
 * The workflow a user named on the command line, by uuid or by its exact name (case-insensitive).
 * Unknown or ambiguous names end the command with a message saying what to do instead.
 */
export async function resolveWorkflow(client: Client, ref: string): Promise<WorkflowRef> {
  if (UUID.test(ref)) {
    try {
      const { data } = await client.workflow({ uuid: ref, from: new Date() });
      return { uuid: data.uuid, name: data.name };
    } catch (error) {
      if (error instanceof NotFoundError && error.status !== 404) {
        throw new CliError(`no workflow ${ref} (or it is not visible to this API key)`, EXIT.NOT_FOUND);
      }
      throw error;
    }
  }
  const wanted = ref.trim().toLowerCase();
  const matches: WorkflowRef[] = [];
  for await (const workflow of client.paginate.workflows({ search: ref.trim() })) {
    if (workflow.name.toLowerCase() === wanted) matches.push({ uuid: workflow.uuid, name: workflow.name });
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new CliError(`no workflow named "${ref}"; \`wfapi workflows\` lists them`, EXIT.NOT_FOUND);
  }
  throw new CliError(
    `${matches.length} workflows are named "${ref}"; give one uuid instead: ${matches.map((m) => m.uuid).join(', ')}`,
    EXIT.USAGE,
  );
}
