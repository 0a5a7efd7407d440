/**
 * The benchmark organization's service level objectives: 100, as an operator would make them
 * (the operator interface's createServiceLevelObjective), so that `serviceLevels` is measured on
 * an organization that watches its workflows. A mix of SUCCESS and LATENCY indicators, 10 for the
 * organization as a whole and 90 spread over its workflows, periods of 7, 28 and 30 days, latency
 * thresholds between a quarter of a second and ten seconds (the simulated executions take from
 * tens of milliseconds to seconds).
 *
 * Each objective has a fixed name (`bench-slo-001` to `bench-slo-100`): made when a dataset is
 * opened, only those missing, so a loaded dataset, an older one and a copy of either (which brings
 * its original's objectives along) all end up with the same 100.
 */
import type { Database } from '../../src/db/database.js';
import { createServiceLevelObjective } from '../../src/objectives/objectives.service.js';

export const BENCH_OBJECTIVES = 100;
const ORGANIZATION_WIDE = 10;
const PERIODS = [7, 28, 30] as const;
const TARGETS = [0.99, 0.995, 0.999, 0.95, 0.9] as const;
const THRESHOLDS_MS = [250, 500, 1_000, 2_000, 5_000, 10_000] as const;
/** Serializes the objectives' making between benchmarks opening the same dataset at once. */
const LOCK = 0x5e_1e_00_64;

const nameOf = (i: number) => `bench-slo-${String(i + 1).padStart(3, '0')}`;

/** The i-th objective (0 to 99) over `workflows` (the organization's, in a fixed order). */
function objectiveOf(i: number, organizationId: string, workflows: readonly string[]) {
  // Alternating, and shifted every 20 so that each workflow has objectives of both indicators.
  const latency = (i + Math.floor(i / 20)) % 2 === 1;
  return {
    organizationId,
    name: nameOf(i),
    workflowUUID: i < ORGANIZATION_WIDE ? null : workflows[(i - ORGANIZATION_WIDE) % workflows.length]!,
    indicator: latency ? ('LATENCY' as const) : ('SUCCESS' as const),
    target: TARGETS[Math.floor(i / 2) % TARGETS.length]!,
    thresholdMs: latency ? THRESHOLDS_MS[Math.floor(i / 2) % THRESHOLDS_MS.length]! : null,
    periodDays: PERIODS[Math.floor(i / 3) % PERIODS.length]!,
  };
}

/** Makes the objectives of `organizationId` that are missing; answers how many it made. */
export async function ensureObjectives(db: Database, organizationId: string): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [LOCK]);
    const workflows = (
      await tx.query<{ uuid: string }>(
        'select uuid from workflows where organization_id = $1 order by name collate "C", uuid',
        [organizationId],
      )
    ).map((row) => row.uuid);
    if (workflows.length === 0) throw new Error(`organization ${organizationId} has no workflows`);
    const present = new Set(
      (
        await tx.query<{ name: string }>(
          `select name from service_level_objectives where organization_id = $1 and name like 'bench-slo-%'`,
          [organizationId],
        )
      ).map((row) => row.name),
    );
    let made = 0;
    for (let i = 0; i < BENCH_OBJECTIVES; i++) {
      if (present.has(nameOf(i))) continue;
      await createServiceLevelObjective(tx, objectiveOf(i, organizationId, workflows));
      made += 1;
    }
    return made;
  });
}
