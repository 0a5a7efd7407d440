/**
 * The live stream (contract section 5): `GET /events` serves the change feed that ingestion
 * writes (change-feed.store.ts) as Server-Sent Events. Part of the extended API only.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { AdmitKey } from '../http/admit-key.js';
import { EventHub } from './event-hub.js';
import { registerEventsRoute } from './events.route.js';

export { recordChangesOnIngest } from './change-feed.store.js';

export function registerEvents(
  server: FastifyInstance,
  deps: { readonly config: Config; readonly db: Database; readonly admit: AdmitKey },
): void {
  if (deps.config.schema !== 'extended') return;
  const hub = new EventHub(deps.db, deps.config.events, (error, message) =>
    error === undefined ? server.log.info(message) : server.log.warn({ err: error }, message),
  );
  // Open streams would hold the server's drain open: they end first, cleanly.
  server.addHook('preClose', async () => hub.close());
  registerEventsRoute(server, { db: deps.db, admit: deps.admit, hub });
}
