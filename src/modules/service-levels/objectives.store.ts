/** SQL of service level objectives (contract section 7). Plain functions, the database handle first. */
import { LRUCache } from 'lru-cache';
import { genericPlan, type Queryable } from '../../db/database.js';
import { type ServiceLevelObjectiveRow, serviceLevelObjectives } from '../../db/tables.js';

const COLUMNS = serviceLevelObjectives.columns.map(([name]) => name).join(', ');
const COLUMNS_OF_O = serviceLevelObjectives.columns.map(([name]) => `o.${name}`).join(', ');
/** What serviceLevels never answers of an objective. */
const UNMEASURED = ['created_at', 'updated_at'] as const;
/** The columns of a MeasuredObjective, as the table defines them. */
const MEASURED_COLUMNS_OF_O = serviceLevelObjectives.columns
  .filter(([name]) => !(UNMEASURED as readonly string[]).includes(name))
  .map(([name]) => `o.${name}`)
  .join(', ');

export type NewObjective = Omit<ServiceLevelObjectiveRow, 'created_at' | 'updated_at'>;

export async function insertObjective(
  db: Queryable,
  objective: NewObjective,
): Promise<ServiceLevelObjectiveRow> {
  const [row] = await db.query<ServiceLevelObjectiveRow>(
    `insert into service_level_objectives (id, organization_id, name, workflow_uuid, indicator, target, threshold_ms, period_days)
     values ($1, $2, $3, $4, $5, $6, $7, $8)
     returning ${COLUMNS}`,
    [
      objective.id,
      objective.organization_id,
      objective.name,
      objective.workflow_uuid,
      objective.indicator,
      objective.target,
      objective.threshold_ms,
      objective.period_days,
    ],
  );
  return row!;
}

export type ObjectiveChanges = {
  -readonly [K in keyof Pick<
    ServiceLevelObjectiveRow,
    'name' | 'workflow_uuid' | 'indicator' | 'target' | 'threshold_ms' | 'period_days'
  >]?: ServiceLevelObjectiveRow[K];
};

const CHANGEABLE = [
  'name',
  'workflow_uuid',
  'indicator',
  'target',
  'threshold_ms',
  'period_days',
] as const satisfies ReadonlyArray<keyof ObjectiveChanges>;

export async function updateObjective(
  db: Queryable,
  id: string,
  changes: ObjectiveChanges,
): Promise<ServiceLevelObjectiveRow | undefined> {
  const set = CHANGEABLE.filter((column) => changes[column] !== undefined);
  const [row] = await db.query<ServiceLevelObjectiveRow>(
    `update service_level_objectives
     set ${[...set.map((column, i) => `${column} = $${i + 2}`), 'updated_at = now()'].join(', ')}
     where id = $1 returning ${COLUMNS}`,
    [id, ...set.map((column) => changes[column])],
  );
  return row;
}

export async function findObjective(
  db: Queryable,
  id: string,
): Promise<ServiceLevelObjectiveRow | undefined> {
  const [row] = await db.query<ServiceLevelObjectiveRow>(
    `select ${COLUMNS} from service_level_objectives where id = $1`,
    [id],
  );
  return row;
}

export async function deleteObjective(
  db: Queryable,
  id: string,
): Promise<ServiceLevelObjectiveRow | undefined> {
  const [row] = await db.query<ServiceLevelObjectiveRow>(
    `delete from service_level_objectives where id = $1 returning ${COLUMNS}`,
    [id],
  );
  return row;
}

/**
 * The objectives of an organization by name, then id; with `workflowUuid`, those of that
 * workflow only (an organization-wide objective is not one of a workflow's).
 */
const LISTED = `where o.organization_id = $1 and ($2::uuid is null or o.workflow_uuid = $2)
     order by o.name collate "C", o.id`;

/** The objectives of an organization (LISTED). */
export function listObjectives(
  db: Queryable,
  organizationId: string,
  workflowUuid: string | null = null,
): Promise<ServiceLevelObjectiveRow[]> {
  return db.query<ServiceLevelObjectiveRow>(
    `select ${COLUMNS_OF_O} from service_level_objectives o ${LISTED}`,
    [organizationId, workflowUuid],
  );
}

/** An objective as serviceLevels measures and answers it: what it counts, with its workflow's name. */
export type MeasuredObjective = Omit<ServiceLevelObjectiveRow, (typeof UNMEASURED)[number]> & {
  /** Null for an organization-wide objective. */
  readonly workflow_name: string | null;
};

/** By organization and scope: the objectives read last, and the digest of their rows. */
const LAST_LISTED = new LRUCache<
  string,
  { readonly digest: string; readonly objectives: MeasuredObjective[] }
>({
  max: 256,
});

/**
 * The objectives of an organization (LISTED) with their workflows' names, in one statement. The
 * database answers the digest of their rows, and the rows themselves only when it differs from
 * that of the rows read last, which are then answered (the very array): a dashboard's poll reads
 * a hundred unchanged objectives as one row instead of parsing them all again. The digest is of
 * the rows in the order the scan gives them (the listed order): were it another, the digest
 * would differ and the rows be read again, never an answer of other rows.
 */
export async function listMeasuredObjectives(
  db: Queryable,
  organizationId: string,
  workflowUuid: string | null,
): Promise<MeasuredObjective[]> {
  const id = `${organizationId}|${workflowUuid}`;
  const last = LAST_LISTED.get(id);
  // Planned once per connection, as the rollup reads of serviceLevels after it.
  const rows = await db.query<Partial<MeasuredObjective> & { digest: string }>(
    genericPlan(`with listed as (
       select ${MEASURED_COLUMNS_OF_O}, w.name as workflow_name
       from service_level_objectives o
       left join workflows w on w.organization_id = o.organization_id and w.uuid = o.workflow_uuid
       ${LISTED}
     ), digested as (
       select md5(coalesce(string_agg(listed::text, E'\\n'), '')) as digest
       from listed
     )
     select d.digest, l.* from digested d left join listed l on d.digest is distinct from $3
     order by l.name collate "C", l.id`),
    [organizationId, workflowUuid, last?.digest ?? null],
  );
  const digest = rows[0]!.digest;
  if (last !== undefined && digest === last.digest) return last.objectives;
  const objectives = rows
    .filter((row) => row.id !== null)
    .map(({ digest: _, ...objective }) => objective as MeasuredObjective);
  LAST_LISTED.set(id, { digest, objectives });
  return objectives;
}
