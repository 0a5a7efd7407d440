import type { RootResolvers } from '../admin/admin-context.js';
import type { MutationFields, QueryFields } from '../admin/admin-types.generated.js';
import type { ApiScalars } from '../schema/scalars.js';
import { toAlertRule, toWebhookDelivery } from './alert-rule.mapper.js';
import {
  alertRulesOf,
  createAlertRule,
  deleteAlertRule,
  redeliverWebhook,
  updateAlertRule,
  webhookDeliveriesOf,
} from './alerts.service.js';

type Queries = RootResolvers<QueryFields<ApiScalars>>;
type Mutations = RootResolvers<MutationFields<ApiScalars>>;

/** The admin schema's alert fields (alerts.graphql); validation lives in alerts.service.ts. */
export const alertQueries: Pick<Queries, 'alertRules' | 'webhookDeliveries'> = {
  alertRules: async (_parent, { input }, { db }) => (await alertRulesOf(db, input)).map(toAlertRule),
  webhookDeliveries: async (_parent, { input }, { db }) =>
    (await webhookDeliveriesOf(db, input)).map(toWebhookDelivery),
};

export const alertMutations: Pick<
  Mutations,
  'createAlertRule' | 'updateAlertRule' | 'deleteAlertRule' | 'redeliverWebhook'
> = {
  createAlertRule: async (_parent, { input }, { db, config }) => {
    const created = await createAlertRule(db, config, input);
    return { rule: toAlertRule(created.row), signingSecret: created.signingSecret };
  },
  updateAlertRule: async (_parent, { input }, { db, config }) =>
    toAlertRule(await updateAlertRule(db, config, input)),
  deleteAlertRule: async (_parent, { input }, { db }) => toAlertRule(await deleteAlertRule(db, input)),
  redeliverWebhook: async (_parent, { input }, { db }) =>
    toWebhookDelivery(await redeliverWebhook(db, input)),
};
