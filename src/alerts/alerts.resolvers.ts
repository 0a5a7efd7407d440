import type { OperatorPart } from '../admin/admin-context.js';
import { toAlertRule, toWebhookDelivery } from './alert-rule.mapper.js';
import {
  alertRulesOf,
  createAlertRule,
  deleteAlertRule,
  redeliverWebhook,
  updateAlertRule,
  webhookDeliveriesOf,
} from './alerts.service.js';

/** The operator schema's alert fields (alerts.graphql); validation lives in alerts.service.ts. */
export const alertsPart: OperatorPart<
  'alertRules' | 'webhookDeliveries',
  'createAlertRule' | 'updateAlertRule' | 'deleteAlertRule' | 'redeliverWebhook'
> = {
  sdl: new URL('./alerts.graphql', import.meta.url),
  Query: {
    alertRules: async (_parent, { input }, { db }) => (await alertRulesOf(db, input)).map(toAlertRule),
    webhookDeliveries: async (_parent, { input }, { db }) =>
      (await webhookDeliveriesOf(db, input)).map(toWebhookDelivery),
  },
  Mutation: {
    createAlertRule: async (_parent, { input }, { db, config }) => {
      const created = await createAlertRule(db, config, input);
      return { rule: toAlertRule(created.row), signingSecret: created.signingSecret };
    },
    updateAlertRule: async (_parent, { input }, { db, config }) =>
      toAlertRule(await updateAlertRule(db, config, input)),
    deleteAlertRule: async (_parent, { input }, { db }) => toAlertRule(await deleteAlertRule(db, input)),
    redeliverWebhook: async (_parent, { input }, { db }) =>
      toWebhookDelivery(await redeliverWebhook(db, input)),
  },
};
