/**
 * The demo's service level objectives: an availability objective of the organization, a latency
 * objective of one workflow, and one whose threshold no demo execution meets (50 ms), so that
 * `wfapi slo status` and serviceLevels show a budget burning (PAGE) beside healthy ones.
 */
import type { Database } from '../../../db/database.js';
import { listObjectives } from '../../../modules/service-levels/objectives.store.js';
import { createServiceLevelObjective } from '../../../objectives/objectives.service.js';

export async function ensureDemoObjectives(db: Database, organizationId: string): Promise<void> {
  if ((await listObjectives(db, organizationId)).length > 0) return;
  const [first] = await db.query<{ uuid: string; name: string }>(
    'select uuid, name from workflows where organization_id = $1 order by name collate "C", uuid limit 1',
    [organizationId],
  );
  await createServiceLevelObjective(db, {
    organizationId,
    name: 'demo: availability',
    indicator: 'SUCCESS',
    target: 0.95,
  });
  if (first)
    await createServiceLevelObjective(db, {
      organizationId,
      name: `demo: ${first.name} under 30 s`,
      workflowUUID: first.uuid,
      indicator: 'LATENCY',
      target: 0.9,
      thresholdMs: 30_000,
      periodDays: 7,
    });
  await createServiceLevelObjective(db, {
    organizationId,
    name: 'demo: everything under 50 ms (burning)',
    indicator: 'LATENCY',
    target: 0.99,
    thresholdMs: 50,
  });
}
