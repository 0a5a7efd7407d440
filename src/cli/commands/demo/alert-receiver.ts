/**
 * The demo's alerting: a small webhook receiver on a loopback port of its own, and one rule that
 * posts every failed execution of the demo organization to it, so that `wfapi alerts deliveries`
 * has something to show within seconds of the start.
 */
import { createServer } from 'node:http';
import { createAlertRule, updateAlertRule } from '../../../alerts/alerts.service.js';
import { listRules } from '../../../alerts/alerts.store.js';
import type { Config } from '../../../config.js';
import type { Database } from '../../../db/database.js';

export const DEMO_RULE_NAME = 'demo: failed executions';

export interface DemoReceiver {
  readonly url: string;
  close(): Promise<void>;
}

/** Answers 204 to every POST: what a receiver does once it has stored the delivery. */
export async function startDemoReceiver(host: string): Promise<DemoReceiver> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.statusCode = request.method === 'POST' ? 204 : 405;
      response.end();
    });
  });
  const loopback = host === '::1' ? '::1' : '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, loopback, resolve);
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://${loopback === '::1' ? '[::1]' : loopback}:${port}/webhooks`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Creates the demo rule, or points the one of an earlier start at this start's receiver. */
export async function ensureDemoRule(
  db: Database,
  config: Config,
  organizationId: string,
  url: string,
): Promise<void> {
  const existing = (await listRules(db, organizationId)).find((rule) => rule.name === DEMO_RULE_NAME);
  if (existing) {
    await updateAlertRule(db, config, { id: existing.id, url, enabled: true });
    return;
  }
  await createAlertRule(db, config, {
    organizationId,
    name: DEMO_RULE_NAME,
    condition: 'EXECUTION_FAILED',
    target: 'WEBHOOK',
    url,
  });
}
