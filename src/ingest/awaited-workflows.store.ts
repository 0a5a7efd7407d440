import type { Transaction } from '../db/database.js';
import { awaitedWorkflows } from '../db/tables.js';

type Pair = { readonly organizationId: string; readonly workflowUuid: string };

const distinctPairs = (pairs: readonly Pair[]) => [
  ...new Map(pairs.map((p) => [`${p.organizationId}/${p.workflowUuid}`, p])).values(),
];

/**
 * Keeps `awaited_workflows` (migration 0013) as a batch changes what is stored: the workflows it
 * stores for the first time are no longer awaited, and those its executions name that are not
 * stored (after this batch's workflows) are. The caller holds the organizations' ingestion
 * locks, so no other batch of theirs runs between the two statements and what they read.
 */
export async function updateAwaitedWorkflows(
  tx: Transaction,
  stored: readonly Pair[],
  named: readonly Pair[],
): Promise<void> {
  if (stored.length > 0) {
    const pairs = distinctPairs(stored);
    await tx.query(
      `delete from ${awaitedWorkflows.name} a using unnest($1::uuid[], $2::uuid[]) as k(organization_id, workflow_uuid)
       where a.organization_id = k.organization_id and a.workflow_uuid = k.workflow_uuid`,
      [pairs.map((p) => p.organizationId), pairs.map((p) => p.workflowUuid)],
    );
  }
  if (named.length === 0) return;
  const pairs = distinctPairs(named);
  await tx.query(
    `insert into ${awaitedWorkflows.name} (organization_id, workflow_uuid)
     select k.organization_id, k.workflow_uuid from unnest($1::uuid[], $2::uuid[]) as k(organization_id, workflow_uuid)
     where not exists (select 1 from workflows w where w.organization_id = k.organization_id and w.uuid = k.workflow_uuid)
     on conflict do nothing`,
    [pairs.map((p) => p.organizationId), pairs.map((p) => p.workflowUuid)],
  );
}
