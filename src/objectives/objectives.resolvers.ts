import type { OperatorPart } from '../admin/admin-context.js';
import { toServiceLevelObjective } from './objective.mapper.js';
import {
  createServiceLevelObjective,
  deleteServiceLevelObjective,
  serviceLevelObjectivesOf,
  updateServiceLevelObjective,
} from './objectives.service.js';

/** The operator schema's objective fields (objectives.graphql); validation lives in objectives.service.ts. */
export const objectivesPart: OperatorPart<
  'serviceLevelObjectives',
  'createServiceLevelObjective' | 'updateServiceLevelObjective' | 'deleteServiceLevelObjective'
> = {
  sdl: new URL('./objectives.graphql', import.meta.url),
  Query: {
    serviceLevelObjectives: async (_parent, { input }, { db }) =>
      (await serviceLevelObjectivesOf(db, input)).map(toServiceLevelObjective),
  },
  Mutation: {
    createServiceLevelObjective: async (_parent, { input }, { db }) =>
      toServiceLevelObjective(await createServiceLevelObjective(db, input)),
    updateServiceLevelObjective: async (_parent, { input }, { db }) =>
      toServiceLevelObjective(await updateServiceLevelObjective(db, input)),
    deleteServiceLevelObjective: async (_parent, { input }, { db }) =>
      toServiceLevelObjective(await deleteServiceLevelObjective(db, input)),
  },
};
