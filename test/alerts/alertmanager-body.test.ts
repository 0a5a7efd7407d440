// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alertmanagerAlerts } from '../../src/alerts/alertmanager.js';
import type { AlertRuleRow } from '../../src/db/tables.js';

const SENT = new Date('2026-03-01T12:00:00.000Z');
const RESEND_MS = 15 * 60_000;

/** A rule as the delivery worker reads it when it sends: no longer firing. */
function resolvedRule(condition: string): AlertRuleRow {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    organization_id: '00000000-0000-4000-8000-000000000002',
    name: 'rule',
    condition,
    target: 'ALERTMANAGER',
    severity: 'critical',
    workflow_uuid: null,
    firing: false,
    fired_at: null,
    slo_status: null,
  } as unknown as AlertRuleRow;
}

const resolution = (type: string, endsAt: string) => ({
  type,
  timestamp: endsAt,
  data: { startsAt: '2026-03-01T11:00:00.000Z', endsAt },
});

describe('the Alertmanager body of a resolution', () => {
  for (const [condition, type] of [
    ['FAILURE_RATE', 'failure_rate.resolved'],
    ['SLO_BURN', 'slo_burn.resolved'],
    ['EXECUTION_STUCK', 'execution_stuck.resolved'],
  ] as const) {
    it(`ends the ${condition} alert when the condition cleared, or at the send when that is later on the sender's clock`, () => {
      const cleared = '2026-03-01T11:59:58.000Z';
      for (const alert of alertmanagerAlerts(
        resolvedRule(condition),
        resolution(type, cleared),
        SENT,
        RESEND_MS,
      )) {
        assert.equal(alert.endsAt, cleared);
      }
      // Stamped ahead of the send (another instance's clock, or the evaluation's): Alertmanager would
      // keep such an alert firing until the firing post's endsAt, an hour on; it ends at the send.
      const ahead = '2026-03-01T12:00:03.000Z';
      for (const alert of alertmanagerAlerts(
        resolvedRule(condition),
        resolution(type, ahead),
        SENT,
        RESEND_MS,
      )) {
        assert.equal(Date.parse(alert.endsAt), SENT.getTime());
      }
    });
  }
});
