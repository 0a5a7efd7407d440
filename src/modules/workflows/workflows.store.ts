import { genericPlan, type Queryable } from '../../db/database.js';
import type { SortingOrder } from '../../schema/schema-types.generated.js';
import { orderClause } from '../shared/ordering.js';
import type { Paging } from '../shared/paging.js';

export interface WorkflowRow {
  uuid: string;
  organization_id: string;
  workflow_id: string;
  name: string;
  owner_address: string;
  /** The latest deployment's status when there is one, else the workflow record's own. */
  effective_status: string;
  registered_at: Date;
  workflow_source: string;
}

export interface WorkflowFilter {
  ownerAddresses?: readonly string[] | undefined;
  statuses?: readonly string[] | undefined;
  search?: string | undefined;
}

export interface WorkflowOrder {
  field: 'NAME' | 'STATUS' | 'EXECUTED_AT' | 'REGISTERED_AT';
  order: SortingOrder;
}

const ORDER_COLUMNS = {
  NAME: 'lower(w.name) collate "C"',
  STATUS: 'w.effective_status collate "C"',
  EXECUTED_AT: 'w.executed_at',
  REGISTERED_AT: 'w.registered_at',
};

/** Workflows of the organization with their effective status (and, when ordering by it, last start). */
function workflowsWith(withExecutedAt: boolean): string {
  return `with w as (
    select w.uuid, w.organization_id, w.workflow_id, w.name, w.owner_address, w.registered_at, w.workflow_source,
           coalesce(d.status, w.status) as effective_status
           ${withExecutedAt ? ', x.executed_at' : ''}
    from workflows w
    left join lateral (
      select d.status from deployments d
      where d.organization_id = w.organization_id and d.workflow_uuid = w.uuid
      order by d.deployed_at desc, d.uuid desc limit 1
    ) d on true
    ${
      withExecutedAt
        ? `left join lateral (
      select e.started_at as executed_at from executions e
      where e.organization_id = w.organization_id and e.workflow_uuid = w.uuid
      order by e.started_at desc limit 1
    ) x on true`
        : ''
    }
    where w.organization_id = $1
  )`;
}

const FILTER = `
  where ($2::text[] is null or lower(w.owner_address) = any($2))
    and ($3::text[] is null or w.effective_status = any($3))
    and ($4::text is null or w.name ilike $4)`;

function filterParams(organizationId: string, filter: WorkflowFilter): unknown[] {
  return [
    organizationId,
    filter.ownerAddresses ? filter.ownerAddresses.map((a) => a.toLowerCase()) : null,
    filter.statuses ?? null,
    filter.search ?? null,
  ];
}

export async function listWorkflows(
  db: Queryable,
  organizationId: string,
  filter: WorkflowFilter,
  order: WorkflowOrder,
  paging: Paging,
): Promise<WorkflowRow[]> {
  return db.query<WorkflowRow>(
    `${workflowsWith(order.field === 'EXECUTED_AT')}
     select w.* from w ${FILTER}
     ${orderClause(ORDER_COLUMNS, order.field, order.order, 'w.uuid', ['EXECUTED_AT'])}
     limit $5 offset $6`,
    [...filterParams(organizationId, filter), paging.limit, paging.offset],
  );
}

export async function countWorkflows(
  db: Queryable,
  organizationId: string,
  filter: WorkflowFilter,
): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `${workflowsWith(false)} select count(*)::int as n from w ${FILTER}`,
    filterParams(organizationId, filter),
  );
  return row?.n ?? 0;
}

export async function findWorkflow(
  db: Queryable,
  organizationId: string,
  uuid: string,
): Promise<WorkflowRow | undefined> {
  // Planned once per connection, as the window read that usually follows it (one workflow's
  // activity): a key lookup whatever the values, and no switch of the connection's plan mode.
  const [row] = await db.query<WorkflowRow>(
    genericPlan(`${workflowsWith(false)} select w.* from w where w.uuid = $2`),
    [organizationId, uuid],
  );
  return row;
}

/**
 * The names of some workflows of the organization, by uuid (the verdicts name the workflows they
 * list). Planned once per connection, as the rollup reads beside it: a key lookup whatever the values.
 */
export async function workflowNames(
  db: Queryable,
  organizationId: string,
  uuids: readonly string[],
): Promise<Map<string, string>> {
  if (uuids.length === 0) return new Map();
  const rows = await db.query<{ uuid: string; name: string }>(
    genericPlan('select uuid, name from workflows where organization_id = $1 and uuid = any($2::uuid[])'),
    [organizationId, [...new Set(uuids)]],
  );
  return new Map(rows.map((row) => [row.uuid, row.name]));
}

/** Start of the latest execution of each workflow: one index probe per workflow. */
export async function latestExecutionStarts(
  db: Queryable,
  organizationId: string,
  uuids: readonly string[],
): Promise<Array<{ workflow_uuid: string; started_at: Date | null }>> {
  return db.query(
    `select u.workflow_uuid, x.started_at
     from unnest($2::uuid[]) as u(workflow_uuid)
     left join lateral (
       select e.started_at from executions e
       where e.organization_id = $1 and e.workflow_uuid = u.workflow_uuid
       order by e.started_at desc limit 1
     ) x on true`,
    [organizationId, uuids],
  );
}
