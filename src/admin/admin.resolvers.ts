import { toOrganization, toOrganizationAccount } from '../modules/accounts/account.mapper.js';
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
import type { OperatorPart } from './admin-context.js';
import { toApiKey, toCreatedApiKey } from './api-key.mapper.js';
import { toMember } from './member.mapper.js';

/** Validation and writes live in admin.service.ts; these only map rows to API types. */
export const adminPart: OperatorPart<
  'apiKeys' | 'organizations' | 'members',
  | 'createOrganization'
  | 'setOrganizationStatus'
  | 'createMember'
  | 'setDeployAccess'
  | 'createApiKey'
  | 'revokeApiKey'
> = {
  sdl: new URL('./admin.graphql', import.meta.url),
  Query: {
    apiKeys: async (_parent, { input }, { db }) => (await apiKeysOf(db, input)).map(toApiKey),
    organizations: async (_parent, _args, { db }) => (await organizationsOf(db)).map(toOrganization),
    members: async (_parent, { input }, { db }) => (await membersOf(db, input)).map(toMember),
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
  },
};
