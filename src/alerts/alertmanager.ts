/**
 * The Alertmanager v2 body of a delivery: one alert with labels `alertname` (the rule's name),
 * `organization`, `workflow` (a uuid, or `all`), `severity` and `rule` (its id, so two rules of
 * one name stay apart), and annotations `summary` and `description`.
 *
 * A firing alert is sent with `endsAt` four re-send intervals after the send (an hour by
 * default), and re-sent every interval while it fires (see rule-timer.ts), so that an
 * Alertmanager whose wfapi went away resolves it on its own; a resolution is sent with the
 * instant the condition cleared. A rule's posts describe it as it is when they are sent, so
 * whatever order they arrive in, the last one leaves Alertmanager in the rule's state. One-off events (a failed execution, a new error group) end an
 * hour after they happened.
 */
import type { AlertRuleRow } from '../db/tables.js';
import { formatTime } from '../lib/time.js';
import { endedBy, isVerdictCondition, verdictAlerts } from './verdict-alerts.js';

/** How long a one-off event stays active in Alertmanager. */
export const ONE_OFF_TTL_MS = 60 * 60 * 1000;

/** A firing alert ends this many re-send intervals after each send: three re-sends may be lost. */
export const RESENDS_PER_TTL = 4;

interface PayloadData {
  readonly workflowUUID?: string | null;
  readonly execution?: {
    readonly workflowUUID: string;
    readonly uuid: string;
    readonly workflowName?: string | null;
  };
  readonly fingerprint?: string;
  readonly startsAt?: string;
  readonly endsAt?: string;
  readonly summary?: string;
}

export function alertmanagerAlerts(
  rule: AlertRuleRow,
  payload: Record<string, unknown>,
  now: Date,
  resendMs: number,
) {
  if (isVerdictCondition(rule.condition))
    return verdictAlerts(rule, payload, now, RESENDS_PER_TTL * resendMs);
  const type = String(payload.type);
  const data = (payload.data ?? {}) as PayloadData;
  const workflow = data.workflowUUID ?? data.execution?.workflowUUID ?? rule.workflow_uuid ?? 'all';
  const labels = {
    alertname: rule.name,
    organization: rule.organization_id,
    workflow,
    severity: rule.severity,
    rule: rule.id,
  };
  const happened = String(payload.timestamp);
  let startsAt = happened;
  let endsAt: string;
  if (type.endsWith('.firing') || type.endsWith('.resolved')) {
    // A timer rule's post says what the rule is when it is sent (`rule` is read then), not when it
    // was queued. Alertmanager knows an alert by its labels only, and a rule's posts can go out
    // in either order (one retried while a later one is sent): a firing post retried past the
    // condition's clearing would reopen the resolved alert for an hour, and a late resolution
    // would close an episode that began since.
    if (rule.firing && rule.fired_at) {
      startsAt = formatTime(rule.fired_at);
      endsAt = formatTime(new Date(now.getTime() + RESENDS_PER_TTL * resendMs));
    } else {
      startsAt = data.startsAt ?? happened;
      endsAt = endedBy(data.endsAt, now);
    }
  } else {
    endsAt = formatTime(new Date(Date.parse(happened) + ONE_OFF_TTL_MS));
  }
  const description =
    data.summary ??
    (data.execution
      ? `execution ${data.execution.uuid} of ${data.execution.workflowName ?? data.execution.workflowUUID} failed`
      : data.fingerprint
        ? `new error group ${data.fingerprint}`
        : type);
  return [
    {
      labels,
      annotations: { summary: `${rule.name}: ${type}`, description },
      startsAt,
      endsAt,
    },
  ];
}
