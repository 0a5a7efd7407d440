/**
 * Prometheus recording and alerting rules for service level objectives (contract section 7,
 * `wfapi slo rules`), over wfapi's own /metrics series: `wfapi_objective_executions_total`
 * counts each objective's finished executions of all time, good or bad, exactly as serviceLevels
 * counts them. The recording rules give each objective's error ratio over every burn window; the
 * alerting rules apply serviceLevels' multiwindow, multi-burn-rate pairs to them, with its
 * low-traffic guard (the longer window holds at least 10 finished executions). Prometheus's
 * windows slide over scrapes, so its figures approximate serviceLevels', whose edges are exact.
 * The text is YAML whose scalars are JSON strings (JSON is YAML), so no name needs escaping.
 */
import { BURN_WINDOWS, MIN_PAIR_TOTAL, STATUS_PAIRS } from '../modules/service-levels/burn-rates.js';
import { OBJECTIVE_SERIES } from './platform-metrics.js';

export interface RuleObjective {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  readonly target: number;
  readonly workflowUUID?: string | null;
}

/** `wfapi_objective:error_ratio:rate5m`: each objective's share of bad executions over a window. */
export const errorRatioSeries = (window: string) => `wfapi_objective:error_ratio:rate${window}`;
/** `wfapi_objective:executions:increase1h`: each objective's finished executions over a window. */
export const executionsSeries = (window: string) => `wfapi_objective:executions:increase${window}`;

const SEVERITY = { PAGE: 'critical', TICKET: 'warning' } as const;
const BY = 'organization_id, objective';

const q = (value: string | number) => JSON.stringify(String(value));

/** The rules of the objectives, as a Prometheus rule file; `organizationId` narrows the recording rules to one organization. */
export function sloRules(objectives: readonly RuleObjective[], organizationId?: string): string {
  const scope = organizationId ? `organization_id="${organizationId}"` : '';
  const selector = (extra: string) => `${OBJECTIVE_SERIES}{${[scope, extra].filter(Boolean).join(',')}}`;
  const lines = ['groups:', `  - name: ${q('wfapi-slo-recording')}`, '    rules:'];
  for (const { name: window } of BURN_WINDOWS) {
    lines.push(
      `      - record: ${q(errorRatioSeries(window))}`,
      `        expr: ${q(`sum by (${BY}) (rate(${selector('result="bad"')}[${window}])) / sum by (${BY}) (rate(${selector('')}[${window}]))`)}`,
      `      - record: ${q(executionsSeries(window))}`,
      `        expr: ${q(`sum by (${BY}) (increase(${selector('')}[${window}]))`)}`,
    );
  }
  lines.push(`  - name: ${q('wfapi-slo-alerts')}`, '    rules:');
  if (objectives.length === 0) lines.push('      []');
  for (const objective of objectives) {
    const budget = 1 - objective.target;
    const of = `objective="${objective.id}"`;
    for (const { status, pairs } of STATUS_PAIRS) {
      const expr = pairs
        .map(
          ({ long, short, factor }) =>
            `(${errorRatioSeries(long)}{${of}} > ${factor} * ${budget} and ${errorRatioSeries(short)}{${of}} > ${factor} * ${budget} and ${executionsSeries(long)}{${of}} >= ${MIN_PAIR_TOTAL})`,
        )
        .join(' or ');
      lines.push(
        `      - alert: ${q(status === 'PAGE' ? 'WfapiSloBurnPage' : 'WfapiSloBurnTicket')}`,
        `        expr: ${q(expr)}`,
        '        labels:',
        `          severity: ${q(SEVERITY[status])}`,
        `          objective_name: ${q(objective.name)}`,
        `          workflow: ${q(objective.workflowUUID ?? 'all')}`,
        '        annotations:',
        `          summary: ${q(`${objective.name}: the error budget burns ${status === 'PAGE' ? 'fast' : 'slowly'} (target ${objective.target})`)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
