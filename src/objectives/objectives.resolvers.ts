import type { RootResolvers } from '../admin/admin-context.js';
import type { MutationFields, QueryFields } from '../admin/admin-types.generated.js';
import type { ApiScalars } from '../schema/scalars.js';
import { toServiceLevelObjective } from './objective.mapper.js';
import {
  createServiceLevelObjective,
  deleteServiceLevelObjective,
  serviceLevelObjectivesOf,
  updateServiceLevelObjective,
} from './objectives.service.js';

type Queries = RootResolvers<QueryFields<ApiScalars>>;
type Mutations = RootResolvers<MutationFields<ApiScalars>>;

/** The admin schema's objective fields (objectives.graphql); validation lives in objectives.service.ts. */
export const objectiveQueries: Pick<Queries, 'serviceLevelObjectives'> = {
  serviceLevelObjectives: async (_parent, { input }, { db }) =>
    (await serviceLevelObjectivesOf(db, input)).map(toServiceLevelObjective),
};

export const objectiveMutations: Pick<
  Mutations,
  'createServiceLevelObjective' | 'updateServiceLevelObjective' | 'deleteServiceLevelObjective'
> = {
  createServiceLevelObjective: async (_parent, { input }, { db }) =>
    toServiceLevelObjective(await createServiceLevelObjective(db, input)),
  updateServiceLevelObjective: async (_parent, { input }, { db }) =>
    toServiceLevelObjective(await updateServiceLevelObjective(db, input)),
  deleteServiceLevelObjective: async (_parent, { input }, { db }) =>
    toServiceLevelObjective(await deleteServiceLevelObjective(db, input)),
};
