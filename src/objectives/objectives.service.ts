/**
 * Operator actions on service level objectives (contract section 7): validation of the
 * operator's input, then the store. Every refusal is BAD_USER_INPUT naming the field.
 */
import { randomUUID } from 'node:crypto';
import { knownOrganizationId, knownWorkflowUuid, label, uuidOf } from '../admin/admin-input.js';
import type {
  CreateServiceLevelObjectiveInput,
  UpdateServiceLevelObjectiveInput,
} from '../admin/admin-types.generated.js';
import type { Queryable } from '../db/database.js';
import type { ServiceLevelObjectiveRow } from '../db/tables.js';
import { badInput, notFound } from '../errors.js';
import {
  deleteObjective,
  findObjective,
  insertObjective,
  listObjectives,
  type ObjectiveChanges,
  updateObjective,
} from '../modules/service-levels/objectives.store.js';
import { binOf, LOWER_BOUNDS } from '../rollups/duration-bins.js';

export const MIN_TARGET = 0.5;
export const MAX_TARGET = 0.99999;
export const DEFAULT_PERIOD_DAYS = 28;
const MAX_PERIOD_DAYS = 90;
/** The largest bin bound: a longer threshold would count every duration as good. */
const MAX_THRESHOLD_MS = LOWER_BOUNDS.at(-1)!;

function target(value: number): number {
  if (!Number.isFinite(value) || value < MIN_TARGET || value > MAX_TARGET)
    throw badInput(`target must be between ${MIN_TARGET} and ${MAX_TARGET}`);
  return value;
}

function periodDays(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_PERIOD_DAYS)
    throw badInput(`periodDays must be an integer between 1 and ${MAX_PERIOD_DAYS}`);
  return value;
}

/** A threshold rounded down to the nearest bound of the duration bins, so `good` is read exactly from them. */
export function thresholdBound(value: number): number {
  if (!Number.isFinite(value) || value < 1 || value > MAX_THRESHOLD_MS)
    throw badInput(`thresholdMs must be between 1 and ${MAX_THRESHOLD_MS}`);
  return LOWER_BOUNDS[binOf(Math.floor(value))]!;
}

function indicator(value: string): 'SUCCESS' | 'LATENCY' {
  if (value !== 'SUCCESS' && value !== 'LATENCY') throw badInput('indicator must be SUCCESS or LATENCY');
  return value;
}

/** A threshold belongs to LATENCY objectives, and each of them has one. */
function checkShape(objective: Pick<ServiceLevelObjectiveRow, 'indicator' | 'threshold_ms'>): void {
  if (objective.indicator === 'LATENCY' && objective.threshold_ms === null)
    throw badInput('thresholdMs is required by LATENCY objectives');
  if (objective.indicator !== 'LATENCY' && objective.threshold_ms !== null)
    throw badInput('thresholdMs applies only to LATENCY objectives');
}

export async function createServiceLevelObjective(
  db: Queryable,
  input: CreateServiceLevelObjectiveInput,
): Promise<ServiceLevelObjectiveRow> {
  const organizationId = await knownOrganizationId(db, input.organizationId);
  const shape = {
    indicator: indicator(input.indicator),
    threshold_ms: input.thresholdMs == null ? null : thresholdBound(input.thresholdMs),
  };
  checkShape(shape);
  return insertObjective(db, {
    id: randomUUID(),
    organization_id: organizationId,
    name: label('name', input.name),
    workflow_uuid: input.workflowUUID
      ? await knownWorkflowUuid(db, organizationId, input.workflowUUID)
      : null,
    ...shape,
    target: target(input.target),
    period_days: periodDays(input.periodDays ?? DEFAULT_PERIOD_DAYS),
  });
}

export async function updateServiceLevelObjective(
  db: Queryable,
  input: UpdateServiceLevelObjectiveInput,
): Promise<ServiceLevelObjectiveRow> {
  const current = await findObjective(db, uuidOf('id', input.id));
  if (!current) throw notFound('service level objective not found');
  const changes: ObjectiveChanges = {};
  if (input.name != null) changes.name = label('name', input.name);
  if (input.workflowUUID != null)
    changes.workflow_uuid = await knownWorkflowUuid(db, current.organization_id, input.workflowUUID);
  if (input.indicator != null) {
    changes.indicator = indicator(input.indicator);
    // A SUCCESS objective has no threshold: one that changes to it drops its threshold.
    if (changes.indicator === 'SUCCESS' && input.thresholdMs == null) changes.threshold_ms = null;
  }
  if (input.target != null) changes.target = target(input.target);
  if (input.thresholdMs != null) changes.threshold_ms = thresholdBound(input.thresholdMs);
  if (input.periodDays != null) changes.period_days = periodDays(input.periodDays);
  checkShape({ ...current, ...changes });
  const row = await updateObjective(db, current.id, changes);
  if (!row) throw notFound('service level objective not found');
  return row;
}

export async function deleteServiceLevelObjective(
  db: Queryable,
  input: { id: string },
): Promise<ServiceLevelObjectiveRow> {
  const row = await deleteObjective(db, uuidOf('id', input.id));
  if (!row) throw notFound('service level objective not found');
  return row;
}

export async function serviceLevelObjectivesOf(
  db: Queryable,
  input: { organizationId: string },
): Promise<ServiceLevelObjectiveRow[]> {
  const organizationId = await knownOrganizationId(db, input.organizationId);
  return listObjectives(db, organizationId);
}
