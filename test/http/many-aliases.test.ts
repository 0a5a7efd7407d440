import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { openEmbedded } from '../../src/db/embedded/embedded-database.js';
import { migrated } from '../../src/db/open.js';
import { TEST_DB } from '../harness/database.js';
import { createTenant, ingest, workflow } from '../harness/fixtures.js';
import { startServer, type TestServer } from '../harness/server.js';

/** `{ w0: workflow(...) { ... } w1: ... }`: what the console's Workflows view sends, with 30 fields. */
function aliasedWorkflows(uuids: readonly string[]): string {
  const fields = uuids.map(
    (uuid, i) =>
      `w${i}: workflow(input: {uuid: "${uuid}", from: "2026-01-01T00:00:00Z"}) { data { name executionCount creditUsed } }`,
  );
  return `{ ${fields.join(' ')} }`;
}

// The embedded database in its worker, as `npm start` runs it: its statements wait their turn
// for the one connection, each listening for the request's time limit meanwhile.
describe('a query of 30 aliased fields on the embedded database', { skip: TEST_DB !== 'pglite' }, () => {
  let dir: string;
  let db: Database;
  let server: TestServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wfapi-aliases-'));
    db = await migrated(await openEmbedded(join(dir, 'data')), {});
    server = await startServer(db, { limits: { maxAliases: 100 } });
  });
  after(async () => {
    await server?.close();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers without a MaxListenersExceededWarning', async () => {
    const tenant = await createTenant(db);
    const workflows = Array.from({ length: 30 }, () => workflow(tenant.organizationId));
    await ingest(db, workflows);
    const query = aliasedWorkflows(workflows.map((w) => w.uuid as string));
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      for (let round = 0; round < 3; round++) {
        const answer = await server.gql(tenant.key, query);
        assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
        assert.equal(Object.keys(answer.body.data).length, 30);
      }
      // A process warning is emitted on a later tick than the listener that caused it.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(
      warnings.map((warning) => `${warning.name}: ${warning.message}`),
      [],
    );
  });
});
