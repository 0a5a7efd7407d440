/**
 * Alert rules and signed webhooks (contract section 5, "Push"): the admin fields live in
 * alerts.graphql and alerts.resolvers.ts, ingestion queues its deliveries through
 * ingest-alerts.store.ts; this is what the server starts beside its routes.
 */
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { DeliveryWorker, type WorkerLog } from './delivery-worker.js';
import { RuleTimer } from './rule-timer.js';

export { queueAlertsOnIngest } from './ingest-alerts.store.js';

export interface RunningAlerts {
  stop(): Promise<void>;
}

/**
 * Starts the delivery worker and the rule timer (unless WFAPI_ALERTS_WORKER=false). `now`, when
 * given, times the timer's evaluations and moves the outbox's due times, leases and retries on
 * past the database's clock (see DeliveryWorker).
 */
export function startAlerts(
  db: Database,
  config: Config,
  log: WorkerLog,
  now?: () => number,
): RunningAlerts | undefined {
  if (!config.alerts.worker) return undefined;
  const worker = new DeliveryWorker(db, config, log, now);
  const timer = new RuleTimer(db, config.alerts, log, () => void worker.poll(), now);
  worker.start();
  timer.start();
  return {
    async stop() {
      await timer.stop();
      await worker.stop();
    },
  };
}
