import type { ComponentChildren } from 'preact';
import type { ServiceLevel } from '../../../client/index.js';
import { href } from '../route.js';
import {
  type AnomalyMetric,
  type CurrentAnomaly,
  formatBurn,
  formatMetric,
  formatShare,
  formatTarget,
  METRIC_TEXT,
  type ServiceLevelStatus,
  STATUS_TONE,
  VERDICT_TEXT,
  VERDICT_TONE,
  type Verdict,
} from '../verdicts.js';
import { Link, Time } from './basics.js';

/** The fields of `serviceLevels` the console shows. */
export const SERVICE_LEVEL_FIELDS = `id name workflowUUID workflowName indicator target thresholdMs periodDays
    total good attainment errorBudgetRemaining burnRates { window total bad rate } status`;

/** The fields of `anomalies.data` the console shows. */
export const ANOMALY_FIELDS =
  'metric workflowUUID workflowName from to observed expected lower upper direction score';

/** A service level as the console asks for it: every field of the schema's `ServiceLevel`. */
export type { ServiceLevel };

/** A deployment's verdict as a badge: its words, the colour only repeating them. */
export function VerdictBadge({ verdict }: { verdict: Verdict }) {
  return (
    <span class={`verdict ${VERDICT_TONE[verdict]}`} data-verdict={verdict}>
      {VERDICT_TEXT[verdict]}
    </span>
  );
}

/** A calm "nothing to report" with a mark, the words saying it all. */
export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty-state" data-empty>
      <span class="empty-mark" aria-hidden="true" />
      <div>
        <p>
          <strong>{title}</strong>
        </p>
        {children && <p class="muted small">{children}</p>}
      </div>
    </div>
  );
}

/** The anomalies still going on, each with its workflow (linked), metric, observed and expected. */
export function UnusualList({
  anomalies,
  keep,
}: {
  anomalies: readonly CurrentAnomaly[];
  keep: Record<string, string | undefined>;
}) {
  return (
    <table class="data">
      <thead>
        <tr>
          <th scope="col">workflow</th>
          <th scope="col">metric</th>
          <th scope="col" class="num">
            observed
          </th>
          <th scope="col" class="num">
            expected
          </th>
          <th scope="col">since</th>
        </tr>
      </thead>
      <tbody>
        {anomalies.map((a) => (
          <tr
            key={`${a.workflowUUID}/${a.metric}`}
            data-anomaly={`${a.workflowUUID ?? 'organization'}/${a.metric}`}
          >
            <td data-cell="workflow">
              {a.workflowUUID ? (
                <Link href={href('workflow', { uuid: a.workflowUUID, ...keep })}>{a.workflowName}</Link>
              ) : (
                'The organization as a whole'
              )}
            </td>
            <td data-label="metric" data-cell="metric">
              <span>
                {METRIC_TEXT[a.metric as AnomalyMetric]}{' '}
                <span class={a.direction === 'UP' ? 'bad' : 'busy'}>
                  {a.direction === 'UP' ? '▲ above' : '▼ below'}
                </span>
              </span>
            </td>
            <td class="num" data-label="observed" data-cell="observed">
              {formatMetric(a.metric, a.observed)}
            </td>
            <td class="num" data-label="expected" data-cell="expected">
              <span>
                {formatMetric(a.metric, a.expected)}{' '}
                <span class="muted small">
                  ({formatMetric(a.metric, a.lower)} – {formatMetric(a.metric, a.upper)})
                </span>
              </span>
            </td>
            <td data-label="since" data-cell="since" data-since={a.since}>
              <span>
                <Time iso={a.since} short relative />
              </span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Service levels as a table: the objective, its workflow (unless `withWorkflow` is false),
 * attainment against the target, the error budget left as a bar with its figure, the burn rates
 * of each window and the status in words.
 */
export function ObjectivesTable({
  levels,
  keep,
  withWorkflow = true,
}: {
  levels: readonly ServiceLevel[];
  keep: Record<string, string | undefined>;
  withWorkflow?: boolean;
}) {
  return (
    <table class="data">
      <thead>
        <tr>
          <th scope="col">objective</th>
          {withWorkflow && <th scope="col">workflow</th>}
          <th scope="col" class="num">
            attainment
          </th>
          <th scope="col" class="num">
            error budget left
          </th>
          <th scope="col" class="num">
            burn rates
          </th>
          <th scope="col">status</th>
        </tr>
      </thead>
      <tbody>
        {levels.map((level) => {
          const budget = level.errorBudgetRemaining;
          const filled = budget === null ? 0 : Math.max(0, Math.min(1, budget));
          return (
            <tr key={level.id} data-objective={level.id}>
              <td class="stacked" data-cell="name">
                {level.name}
                <div class="muted small">
                  {level.indicator === 'LATENCY' ? `under ${level.thresholdMs} ms` : 'succeeded'} · target{' '}
                  {formatTarget(level.target)} over {level.periodDays} d
                </div>
              </td>
              {withWorkflow && (
                <td data-label="workflow" data-cell="workflow">
                  {level.workflowUUID ? (
                    <Link href={href('workflow', { uuid: level.workflowUUID, ...keep })}>
                      {level.workflowName ?? level.workflowUUID}
                    </Link>
                  ) : (
                    'all workflows'
                  )}
                </td>
              )}
              <td class="num" data-label="attainment" data-cell="attainment">
                <span>
                  {formatShare(level.attainment, 2)}
                  <span class="muted small block">
                    {level.good} of {level.total} good
                  </span>
                </span>
              </td>
              <td class="num" data-label="error budget left">
                <div class="budget">
                  <span
                    class={`budget-bar${budget !== null && budget <= 0 ? ' spent' : ''}`}
                    role="img"
                    aria-label={`error budget left: ${formatShare(budget)}`}
                  >
                    <span style={{ width: `${(filled * 100).toFixed(1)}%` }} />
                  </span>
                  <span data-cell="budget">{formatShare(budget)}</span>
                </div>
              </td>
              <td class="num" data-label="burn rates">
                <ul class="burns" data-cell="burns">
                  {level.burnRates.map((burn) => (
                    <li key={burn.window} data-window={burn.window}>
                      <span class="window">{burn.window}</span>
                      <span data-rate>{formatBurn(burn.rate)}</span>
                    </li>
                  ))}
                </ul>
              </td>
              <td data-label="status">
                <span class={`status ${STATUS_TONE[level.status]}`} data-cell="status">
                  {level.status}
                </span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
