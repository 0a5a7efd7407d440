/**
 * Alertmanager bodies of section 7's conditions (see alertmanager.ts for the others).
 *
 * SLO_BURN: the label `severity` is the episode's (warning for TICKET, critical for PAGE) and
 * `objective` its objective's id. Like a timer rule's, a post describes the rule as it is when
 * sent: while firing, the episode's severity with an `endsAt` four re-send intervals ahead; once
 * escalated to critical, the warning alert of the same episode is resolved in the same post (the
 * two differ by label, so Alertmanager holds them apart); a resolution resolves both.
 *
 * EXECUTION_STUCK: one alert per execution (label `execution`), firing from the post that says
 * it is stuck (re-sent while it is) until the post that resolves it.
 */
import type { AlertRuleRow } from '../db/tables.js';
import { formatTime } from '../lib/time.js';
import { sloSeverity } from './slo-burn.condition.js';

interface VerdictData {
  readonly workflowUUID?: string | null;
  readonly objective?: { readonly id: string };
  readonly execution?: { readonly uuid: string };
  readonly severity?: string;
  readonly startsAt?: string;
  readonly endsAt?: string;
  readonly summary?: string;
}

export const isVerdictCondition = (condition: string) =>
  condition === 'SLO_BURN' || condition === 'EXECUTION_STUCK';

/**
 * The `endsAt` of a post that resolves an alert: when the condition cleared, but never after the
 * send. Alertmanager counts an alert resolved only once its `endsAt` has passed on its own clock,
 * and while it is not, keeps the later `endsAt` of the firing post before it (an hour ahead):
 * a resolution stamped by a clock ahead of the sender's (another instance's, or the evaluation's)
 * would keep the alert firing for that hour.
 */
export function endedBy(endsAt: string | undefined, now: Date): string {
  const sent = formatTime(now);
  return endsAt !== undefined && Date.parse(endsAt) < now.getTime() ? endsAt : sent;
}

export function verdictAlerts(
  rule: AlertRuleRow,
  payload: Record<string, unknown>,
  now: Date,
  openForMs: number,
) {
  const type = String(payload.type);
  const data = (payload.data ?? {}) as VerdictData;
  const base = {
    alertname: rule.name,
    organization: rule.organization_id,
    workflow: data.workflowUUID ?? 'all',
  };
  const annotations = { summary: `${rule.name}: ${type}`, description: data.summary ?? type };
  const open = formatTime(new Date(now.getTime() + openForMs));
  const happened = String(payload.timestamp);
  if (rule.condition === 'SLO_BURN') {
    const labels = (severity: string) => ({
      ...base,
      severity,
      rule: rule.id,
      objective: data.objective?.id ?? '',
    });
    if (rule.firing && rule.fired_at && rule.slo_status) {
      const severity = sloSeverity(rule.slo_status);
      const startsAt = formatTime(rule.fired_at);
      return [
        { labels: labels(severity), annotations, startsAt, endsAt: open },
        ...(severity === 'critical'
          ? [{ labels: labels('warning'), annotations, startsAt, endsAt: formatTime(now) }]
          : []),
      ];
    }
    const startsAt = data.startsAt ?? happened;
    const endsAt = endedBy(data.endsAt, now);
    return ['warning', 'critical'].map((severity) => ({
      labels: labels(severity),
      annotations,
      startsAt,
      endsAt,
    }));
  }
  const labels = { ...base, severity: rule.severity, rule: rule.id, execution: data.execution?.uuid ?? '' };
  const firing = type.endsWith('.firing');
  return [
    {
      labels,
      annotations,
      startsAt: data.startsAt ?? happened,
      endsAt: firing ? open : endedBy(data.endsAt, now),
    },
  ];
}
