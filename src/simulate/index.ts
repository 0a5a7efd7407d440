/** The platform simulator's public surface: build a world from a plan, then read its records. */
export type { Arrival } from './arrivals.js';
export { createWorld } from './create-world.js';
export { deploymentTimeline, isRunning, type TimedRecords } from './deployments.js';
export { buildExecution, DETAILS, type Detail, MAX_EXECUTION_MS } from './execution.js';
export { type Incident, incidentAt, incidentsOnDay } from './incidents.js';
export { type LiveBatch, type LiveOptions, liveBatches } from './live.js';
export { toNdjsonLine } from './ndjson.js';
export {
  emptyCounts,
  type RecordCounts,
  recordsBetween,
  totalRecords,
  type WindowOptions,
} from './stream.js';
export {
  organizationProfile,
  type SimulationPlan,
  type SimWorkflow,
  type World,
} from './world.js';
