import { randomUUID } from 'node:crypto';
import { createApiKey, createMember, createOrganization } from '../../src/admin/admin.service.js';
import { INGEST_OBSERVERS } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import { ingestBatch } from '../../src/ingest/ingest.store.js';
import { parseRecord, type TimeBounds } from '../../src/ingest/records.js';

export interface Tenant {
  readonly organizationId: string;
  readonly memberId: string;
  readonly key: string;
  readonly keyId: string;
}

/** An organization with one member who has deploy access, and an API key of that member. */
export async function createTenant(db: Database, name = 'Acme'): Promise<Tenant> {
  const organization = await createOrganization(db, { displayName: name });
  const member = await createMember(db, {
    organizationId: organization.id,
    emailAddress: `ops@${name.toLowerCase().replace(/\W/g, '')}.example`,
    displayName: `${name} Ops`,
    memberType: 'ADMIN',
    deployAccess: true,
  });
  const created = await createApiKey(db, { memberId: member.id, name: 'test' });
  return { organizationId: organization.id, memberId: member.id, key: created.key, keyId: created.row.id };
}

type Raw = Record<string, unknown>;

/**
 * Every time the tables can hold (what versions before the ingest time bounds accepted), so that
 * tests can store the extremes a database may still have.
 */
export const STORABLE_TIMES: TimeBounds = { earliest: 0, latest: Number.POSITIVE_INFINITY };

/** Stores records through the ingestion path, failing the test if any line is rejected. */
export async function ingest(db: Database, records: readonly Raw[]): Promise<void> {
  const result = await ingestBatch(
    db,
    records.map((record, index) => ({ line: index + 1, record: parseRecord(record, STORABLE_TIMES) })),
    { observers: INGEST_OBSERVERS },
  );
  if (result.rejected.length) throw new Error(`fixture rejected: ${JSON.stringify(result.rejected)}`);
}

export const workflow = (organizationId: string, fields: Raw = {}): Raw => ({
  type: 'workflow',
  organizationId,
  uuid: randomUUID(),
  workflowId: `0x${randomUUID().replace(/-/g, '')}`,
  name: 'price-feed',
  ownerAddress: '0x00000000000000000000000000000000000000aa',
  status: 'ACTIVE',
  registeredAt: '2026-01-01T00:00:00Z',
  workflowSource: 'github.com/acme/flows',
  ...fields,
});

export const deployment = (organizationId: string, workflowUUID: string, fields: Raw = {}): Raw => ({
  type: 'deployment',
  organizationId,
  uuid: randomUUID(),
  workflowUUID,
  status: 'ACTIVE',
  deployedAt: '2026-01-01T00:00:00Z',
  txHash: `0x${randomUUID().replace(/-/g, '')}`,
  ...fields,
});

export const execution = (organizationId: string, workflowUUID: string, fields: Raw = {}): Raw => ({
  type: 'execution',
  organizationId,
  uuid: randomUUID(),
  id: `0x${randomUUID().replace(/-/g, '')}`,
  workflowUUID,
  status: 'SUCCESS',
  startedAt: '2026-01-02T00:00:00Z',
  ...fields,
});

export const log = (organizationId: string, workflowExecutionUUID: string, fields: Raw = {}): Raw => ({
  type: 'log',
  organizationId,
  workflowExecutionUUID,
  nodeID: 'node-1',
  message: 'hello',
  timestamp: '2026-01-02T00:00:01Z',
  ...fields,
});

export const event = (organizationId: string, workflowExecutionUUID: string, fields: Raw = {}): Raw => ({
  type: 'event',
  organizationId,
  workflowExecutionUUID,
  capabilityID: 'cron-trigger@1.0.0',
  status: 'SUCCESS',
  startedAt: '2026-01-02T00:00:00Z',
  ...fields,
});
