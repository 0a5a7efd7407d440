import type { AlertRuleRow } from '../db/tables.js';

/** How a delivery's `data.rule` names the rule that made it. */
export const ruleSummary = (rule: AlertRuleRow) => ({
  id: rule.id,
  name: rule.name,
  condition: rule.condition,
  severity: rule.severity,
});
