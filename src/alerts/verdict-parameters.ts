/**
 * The parameters of section 7's alert conditions (SLO_BURN, EXECUTION_STUCK): checked here, apart
 * from section 5's, so that each condition's rules stay in files of their own.
 */
import { uuidOf } from '../admin/admin-input.js';
import type { CreateAlertRuleInput, UpdateAlertRuleInput } from '../admin/admin-types.generated.js';
import type { Queryable } from '../db/database.js';
import type { AlertRuleRow } from '../db/tables.js';
import { badInput } from '../errors.js';
import { parseDuration } from '../lib/duration.js';

export const DEFAULT_STUCK_FACTOR = 3;
export const DEFAULT_STUCK_MIN_DURATION_S = 5 * 60;
const MAX_MIN_DURATION_S = 7 * 24 * 60 * 60;

type VerdictParameters = Pick<AlertRuleRow, 'service_level_objective_id' | 'factor' | 'min_duration_seconds'>;

function factor(value: number): number {
  if (!Number.isFinite(value) || value < 1 || value > 1000)
    throw badInput('factor must be between 1 and 1000');
  return value;
}

function minDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms % 1000 !== 0)
    throw badInput('minDuration must be a duration such as 5m, 1h or 2d');
  const s = ms / 1000;
  if (s < 60 || s > MAX_MIN_DURATION_S) throw badInput('minDuration must be between 1m and 7d');
  return s;
}

async function objectiveOf(db: Queryable, organizationId: string, value: string): Promise<string> {
  const id = uuidOf('serviceLevelObjectiveId', value);
  const [row] = await db.query<{ id: string }>(
    'select id from service_level_objectives where id = $1 and organization_id = $2',
    [id, organizationId],
  );
  if (!row)
    throw badInput(
      `serviceLevelObjectiveId ${id} is not a service level objective of organization ${organizationId}`,
    );
  return id;
}

/** A new rule's parameters of these conditions, defaults applied to EXECUTION_STUCK's. */
export async function verdictParameters(
  db: Queryable,
  organizationId: string,
  input: CreateAlertRuleInput,
): Promise<VerdictParameters> {
  const stuck = input.condition === 'EXECUTION_STUCK';
  return {
    service_level_objective_id: input.serviceLevelObjectiveId
      ? await objectiveOf(db, organizationId, input.serviceLevelObjectiveId)
      : null,
    factor: input.factor != null ? factor(input.factor) : stuck ? DEFAULT_STUCK_FACTOR : null,
    min_duration_seconds:
      input.minDuration != null
        ? minDuration(input.minDuration)
        : stuck
          ? DEFAULT_STUCK_MIN_DURATION_S
          : null,
  };
}

/** The changes an update makes to them (the objective of an SLO_BURN rule is fixed: make a new rule). */
export function verdictChanges(input: UpdateAlertRuleInput): Partial<VerdictParameters> {
  const changes: { factor?: number; min_duration_seconds?: number } = {};
  if (input.factor != null) changes.factor = factor(input.factor);
  if (input.minDuration != null) changes.min_duration_seconds = minDuration(input.minDuration);
  return changes;
}

/** Each parameter only on its condition; SLO_BURN requires its objective. */
export function checkVerdictShape(
  rule: VerdictParameters & Pick<AlertRuleRow, 'condition'>,
  only: (field: string, present: unknown, conditions: readonly string[]) => void,
): void {
  only('serviceLevelObjectiveId', rule.service_level_objective_id, ['SLO_BURN']);
  only('factor', rule.factor, ['EXECUTION_STUCK']);
  only('minDuration', rule.min_duration_seconds, ['EXECUTION_STUCK']);
  if (rule.condition === 'SLO_BURN') {
    if (rule.service_level_objective_id === null)
      throw badInput('serviceLevelObjectiveId is required by SLO_BURN');
  }
}
