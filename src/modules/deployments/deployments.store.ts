import type { Queryable } from '../../db/database.js';
import type { SortingOrder } from '../../schema/schema-types.generated.js';
import { orderClause } from '../shared/ordering.js';
import type { Paging } from '../shared/paging.js';

export interface DeploymentRow {
  uuid: string;
  workflow_uuid: string;
  /** The workflow's on-chain id. */
  workflow_id: string;
  workflow_source: string;
  status: string;
  deployed_at: Date;
  /** When the next deployment of the workflow took over; null while this one is the latest. */
  superseded_at: Date | null;
  tx_hash: string | null;
  error_message: string | null;
  binary_url: string | null;
  config_url: string | null;
}

export interface DeploymentFilter {
  workflowUuid: string;
  statuses?: readonly string[] | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  search?: string | undefined;
}

export interface DeploymentOrder {
  field: 'WORKFLOW_ID' | 'DEPLOYED_AT';
  order: SortingOrder;
}

const ORDER_COLUMNS = { WORKFLOW_ID: 'w.workflow_id collate "C"', DEPLOYED_AT: 'd.deployed_at' };

/** Deployments are visible only once their workflow is (a child never shows without its parent). */
const SELECT = `
  select d.uuid, d.workflow_uuid, w.workflow_id, w.workflow_source, d.status, d.deployed_at, d.tx_hash,
         d.error_message, d.binary_url, d.config_url,
         (select n.deployed_at from deployments n
          where n.organization_id = d.organization_id and n.workflow_uuid = d.workflow_uuid
            and (n.deployed_at, n.uuid) > (d.deployed_at, d.uuid)
          order by n.deployed_at, n.uuid limit 1) as superseded_at
  from deployments d
  join workflows w on w.organization_id = d.organization_id and w.uuid = d.workflow_uuid`;

const FILTER = `
  where d.organization_id = $1 and d.workflow_uuid = $2
    and ($3::text[] is null or d.status = any($3))
    and ($4::timestamptz is null or d.deployed_at >= $4)
    and ($5::timestamptz is null or d.deployed_at <= $5)
    and ($6::text is null or d.tx_hash ilike $6 or d.uuid::text ilike $6)`;

function filterParams(organizationId: string, filter: DeploymentFilter): unknown[] {
  return [
    organizationId,
    filter.workflowUuid,
    filter.statuses ?? null,
    filter.from ?? null,
    filter.to ?? null,
    filter.search ?? null,
  ];
}

export async function listDeployments(
  db: Queryable,
  organizationId: string,
  filter: DeploymentFilter,
  order: DeploymentOrder,
  paging: Paging,
): Promise<DeploymentRow[]> {
  return db.query<DeploymentRow>(
    `${SELECT} ${FILTER} ${orderClause(ORDER_COLUMNS, order.field, order.order, 'd.uuid')} limit $7 offset $8`,
    [...filterParams(organizationId, filter), paging.limit, paging.offset],
  );
}

export async function countDeployments(
  db: Queryable,
  organizationId: string,
  filter: DeploymentFilter,
): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `select count(*)::int as n from deployments d
     join workflows w on w.organization_id = d.organization_id and w.uuid = d.workflow_uuid ${FILTER}`,
    filterParams(organizationId, filter),
  );
  return row?.n ?? 0;
}

export async function findDeployment(
  db: Queryable,
  organizationId: string,
  uuid: string,
): Promise<DeploymentRow | undefined> {
  const [row] = await db.query<DeploymentRow>(`${SELECT} where d.organization_id = $1 and d.uuid = $2`, [
    organizationId,
    uuid,
  ]);
  return row;
}
