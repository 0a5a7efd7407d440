import { alertMutations, alertQueries } from '../alerts/alerts.resolvers.js';
import { toOrganization, toOrganizationAccount } from '../modules/accounts/account.mapper.js';
import { objectiveMutations, objectiveQueries } from '../objectives/objectives.resolvers.js';
import type { ApiScalars } from '../schema/scalars.js';
import {
  apiKeysOf,
  createApiKey,
  createMember,
  createOrganization,
  membersOf,
  organizationsOf,
  revokeKey,
  setDeployAccess,
  setOrganizationActiveStatus,
} from './admin.service.js';
import type { AdminContext, RootResolvers } from './admin-context.js';
import type { MutationFields, QueryFields } from './admin-types.generated.js';
import { toApiKey, toCreatedApiKey } from './api-key.mapper.js';
import { toMember } from './member.mapper.js';

/** Validation and writes live in admin.service.ts; these only map rows to API types. */
export const adminResolvers: {
  Query: RootResolvers<QueryFields<ApiScalars>>;
  Mutation: RootResolvers<MutationFields<ApiScalars>>;
} = {
  Query: {
    apiKeys: async (_parent, { input }, { db }) => (await apiKeysOf(db, input)).map(toApiKey),
    organizations: async (_parent, _args, { db }) => (await organizationsOf(db)).map(toOrganization),
    members: async (_parent, { input }, { db }) => (await membersOf(db, input)).map(toMember),
    ...alertQueries,
    ...objectiveQueries,
  },
  Mutation: {
    createOrganization: async (_parent, { input }, { db }) =>
      toOrganization(await createOrganization(db, input)),
    setOrganizationStatus: async (_parent, { input }, { db }) =>
      toOrganization(await setOrganizationActiveStatus(db, input)),
    createMember: async (_parent, { input }, { db }) => toOrganizationAccount(await createMember(db, input)),
    setDeployAccess: async (_parent, { input }, { db }) =>
      toOrganizationAccount(await setDeployAccess(db, input)),
    createApiKey: async (_parent, { input }, { db }) => toCreatedApiKey(await createApiKey(db, input)),
    revokeApiKey: async (_parent, { input }, { db }) => toApiKey(await revokeKey(db, input)),
    ...alertMutations,
    ...objectiveMutations,
  },
};
