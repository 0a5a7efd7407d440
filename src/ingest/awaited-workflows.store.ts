import type { Transaction } from '../db/database.js';
import { awaitedWorkflows } from '../db/tables.js';

type Pair = { readonly organizationId: string; readonly workflowUuid: string };

/** The pairs as the two arrays a `unnest($1::uuid[], $2::uuid[])` reads. */
const unnestParams = (pairs: readonly Pair[]) => [
  pairs.map((p) => p.organizationId),
  pairs.map((p) => p.workflowUuid),
];

/**
 * Keeps `awaited_workflows` (migration 0013) as a batch changes what is stored: the workflows it
 * stores for the first time are no longer awaited, and those its executions name that are not
 * stored (`unstored`, as the rollups found them after this batch's workflows, distinct) are. The
 * caller holds the organizations' ingestion locks, so no other batch of theirs runs in between.
 * A batch that stores no workflow and names only stored ones writes nothing.
 */
export async function updateAwaitedWorkflows(
  tx: Transaction,
  stored: readonly Pair[],
  unstored: readonly Pair[],
): Promise<void> {
  if (stored.length > 0) {
    await tx.query(
      `delete from ${awaitedWorkflows.name} a using unnest($1::uuid[], $2::uuid[]) as k(organization_id, workflow_uuid)
       where a.organization_id = k.organization_id and a.workflow_uuid = k.workflow_uuid`,
      unnestParams(stored),
    );
  }
  if (unstored.length === 0) return;
  await tx.query(
    `insert into ${awaitedWorkflows.name} (organization_id, workflow_uuid)
     select * from unnest($1::uuid[], $2::uuid[]) on conflict do nothing`,
    unnestParams(unstored),
  );
}
