import type { ServiceLevelIndicator, ServiceLevelObjective } from '../admin/admin-types.generated.js';
import type { ServiceLevelObjectiveRow } from '../db/tables.js';
import type { ApiScalars } from '../schema/scalars.js';

/** A stored objective as operators see it. */
export function toServiceLevelObjective(row: ServiceLevelObjectiveRow): ServiceLevelObjective<ApiScalars> {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    workflowUUID: row.workflow_uuid,
    indicator: row.indicator as ServiceLevelIndicator,
    target: row.target,
    thresholdMs: row.threshold_ms,
    periodDays: row.period_days,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
