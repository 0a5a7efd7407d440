import type { Resolvers } from '../resolver-types.generated.js';
import { toOrganization, toOrganizationAccount } from './account.mapper.js';
import { findMember, findOrganization } from './accounts.store.js';

export const accountsResolvers: Resolvers = {
  Query: {
    getAccountDetails: async (_parent, _args, ctx) => {
      const row = await findMember(ctx.db, ctx.organizationId, ctx.principal.memberId);
      return row ? toOrganizationAccount(row) : null;
    },
    getOrganization: async (_parent, _args, ctx) => {
      const row = await findOrganization(ctx.db, ctx.organizationId);
      return row ? toOrganization(row) : null;
    },
  },
};
