import assert from 'node:assert/strict';
import { adminGql } from '../admin/admin-request.js';

const OBJECTIVE_FIELDS =
  'id organizationId name workflowUUID indicator target thresholdMs periodDays createdAt updatedAt';

export const CREATE_OBJECTIVE = `mutation($input: CreateServiceLevelObjectiveInput!) {
  createServiceLevelObjective(input: $input) { ${OBJECTIVE_FIELDS} }
}`;

export const UPDATE_OBJECTIVE = `mutation($input: UpdateServiceLevelObjectiveInput!) {
  updateServiceLevelObjective(input: $input) { ${OBJECTIVE_FIELDS} }
}`;

export const DELETE_OBJECTIVE = `mutation($input: DeleteServiceLevelObjectiveInput!) {
  deleteServiceLevelObjective(input: $input) { id name }
}`;

export const OBJECTIVES = `query($input: ServiceLevelObjectivesInput!) {
  serviceLevelObjectives(input: $input) { ${OBJECTIVE_FIELDS} }
}`;

export const SERVICE_LEVELS = `query($input: ServiceLevelsInput!) { serviceLevels(input: $input) { data {
  id name workflowUUID workflowName indicator target thresholdMs periodDays total good attainment
  errorBudgetRemaining burnRates { window total bad rate } status } } }`;

/** Creates an objective through the admin API, failing the test on any error; answers it. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
export async function createObjective(serverUrl: string, input: Record<string, unknown>): Promise<any> {
  const answer = await adminGql(serverUrl, CREATE_OBJECTIVE, { input });
  assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
  return answer.body.data.createServiceLevelObjective;
}
