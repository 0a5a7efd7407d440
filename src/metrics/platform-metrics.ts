import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Database } from '../db/database.js';
import {
  creditNumber,
  DURATION_BOUNDS_MS,
  type PlatformSnapshot,
  readPlatformSnapshot,
} from './platform-snapshot.js';

type DurationLabel = 'organization_id' | 'workflow';

/** The counter of each objective's good and bad executions, which `wfapi slo rules` reads. */
export const OBJECTIVE_SERIES = 'wfapi_objective_executions_total';

const DURATION_NAME = 'wfapi_execution_duration_seconds';
const DURATION_HELP =
  'Durations of finished executions of all time, by organization and workflow; a bucket counts the durations below its bound.';

/**
 * A label value as written: prom-client escapes backslash, double quote and line feed, the three
 * escapes of the text format; a carriage return has none, and a raw one breaks readers that also
 * end lines there, so it is written as a line feed (CRLF as one).
 */
const labelText = (value: string): string => value.replace(/\r\n?/g, '\n');

/**
 * A histogram whose buckets are not observed here but read, already counted, from the rollups:
 * it answers the last snapshot's counts in prom-client's own histogram shape.
 */
class RollupHistogram extends Histogram<DurationLabel> {
  constructor(
    registry: Registry,
    private readonly latest: () => PlatformSnapshot | undefined,
  ) {
    super({
      name: DURATION_NAME,
      help: DURATION_HELP,
      labelNames: ['organization_id', 'workflow'],
      buckets: DURATION_BOUNDS_MS.map((ms) => ms / 1000),
      registers: [registry],
    });
  }

  override async get(): Promise<Awaited<ReturnType<Histogram<DurationLabel>['get']>>> {
    const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
    for (const entry of this.latest()?.durations ?? []) {
      const labels = { organization_id: entry.organizationId, workflow: entry.workflow };
      let cumulative = 0;
      entry.buckets.forEach((n, i) => {
        cumulative += n;
        const le = i < DURATION_BOUNDS_MS.length ? DURATION_BOUNDS_MS[i]! / 1000 : '+Inf';
        values.push({ metricName: `${DURATION_NAME}_bucket`, labels: { ...labels, le }, value: cumulative });
      });
      values.push({ metricName: `${DURATION_NAME}_sum`, labels, value: entry.sumSeconds });
      values.push({ metricName: `${DURATION_NAME}_count`, labels, value: entry.count });
    }
    const metric = { name: DURATION_NAME, help: DURATION_HELP, type: 'histogram', aggregator: 'sum', values };
    return metric as unknown as Awaited<ReturnType<Histogram<DurationLabel>['get']>>;
  }

  /** prom-client's registry formats a histogram through this method (missing from its types), not get. */
  getForPromString() {
    return this.get();
  }
}

/**
 * The platform's metrics (contract section 5), read from the rollups at each scrape, never by
 * scanning executions. A read that takes longer than `timeoutMs` is not waited for: the scrape
 * answers the last snapshot (with `wfapi_metrics_platform_up 0`) and the read, left running,
 * serves the next scrape; concurrent scrapes share one read.
 */
export class PlatformMetrics {
  private latest: PlatformSnapshot | undefined;
  private reading: Promise<void> | undefined;
  private up = 0;
  private readSeconds = 0;

  constructor(
    registry: Registry,
    private readonly db: Database,
    private readonly options: { readonly maxWorkflows: number; readonly timeoutMs: number },
    private readonly onError: (error: unknown) => void,
  ) {
    const self = this;
    const registers = [registry];
    new Counter({
      name: 'wfapi_executions_total',
      help: 'Executions of all time by organization, workflow (uuid, or other past WFAPI_METRICS_MAX_WORKFLOWS) and current status.',
      labelNames: ['organization_id', 'workflow', 'status'],
      registers,
      collect() {
        this.reset();
        for (const totals of self.latest?.workflows ?? []) {
          for (const [status, n] of totals.byStatus) {
            this.inc({ organization_id: totals.organizationId, workflow: totals.workflow, status }, n);
          }
        }
      },
    });
    new Counter({
      name: 'wfapi_credits_used_total',
      help: 'Credits used by executions of all time, by organization and workflow.',
      labelNames: ['organization_id', 'workflow'],
      registers,
      collect() {
        this.reset();
        for (const totals of self.latest?.workflows ?? []) {
          const labels = { organization_id: totals.organizationId, workflow: totals.workflow };
          this.inc(labels, creditNumber(totals.credit));
        }
      },
    });
    new RollupHistogram(registry, () => this.latest);
    new Counter({
      name: OBJECTIVE_SERIES,
      help: 'Finished executions of all time in the scope of each service level objective, good (SUCCESS, or faster than its threshold) or bad.',
      labelNames: ['organization_id', 'objective', 'result'],
      registers,
      collect() {
        this.reset();
        for (const row of self.latest?.objectives ?? []) {
          const labels = { organization_id: row.organization_id, objective: row.objective };
          this.inc({ ...labels, result: 'good' }, row.good);
          this.inc({ ...labels, result: 'bad' }, row.total - row.good);
        }
      },
    });
    new Gauge({
      name: 'wfapi_workflow_info',
      help: 'Always 1: the name of each workflow label value, to join on (workflow) in queries.',
      labelNames: ['organization_id', 'workflow', 'workflow_name'],
      registers,
      collect() {
        this.reset();
        for (const totals of self.latest?.workflows ?? []) {
          if (totals.name === undefined) continue;
          const labels = { organization_id: totals.organizationId, workflow: totals.workflow };
          this.set({ ...labels, workflow_name: labelText(totals.name) }, 1);
        }
      },
    });
    new Gauge({
      name: 'wfapi_data_freshness_seconds',
      help: "Seconds since the organization's latest committed ingestion (extensions.dataAsOf).",
      labelNames: ['organization_id'],
      registers,
      collect() {
        this.reset();
        const now = Date.now();
        for (const mark of self.latest?.dataAsOf ?? []) {
          this.set({ organization_id: mark.organizationId }, Math.max(0, (now - mark.at) / 1000));
        }
      },
    });
    new Gauge({
      name: 'wfapi_metrics_platform_up',
      help: "1 when this scrape's platform metrics were read within WFAPI_METRICS_TIMEOUT_MS, 0 when they are the last ones read (or absent).",
      registers,
      collect() {
        this.set(self.up);
      },
    });
    new Gauge({
      name: 'wfapi_metrics_platform_read_seconds',
      help: 'How long the latest completed read of the platform metrics took.',
      registers,
      collect() {
        this.set(self.readSeconds);
      },
    });
  }

  /** Reads a new snapshot for the scrape about to be answered, waiting at most the time limit. */
  async refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), this.options.timeoutMs);
    });
    try {
      const late = await Promise.race([this.reading.then(() => false), timedOut]);
      if (late) this.up = 0;
    } finally {
      clearTimeout(timer);
    }
  }

  private async read(): Promise<void> {
    const started = performance.now();
    try {
      this.latest = await readPlatformSnapshot(this.db, this.options.maxWorkflows);
      this.up = 1;
    } catch (error) {
      this.up = 0;
      this.onError(error);
    } finally {
      this.readSeconds = (performance.now() - started) / 1000;
    }
  }
}
