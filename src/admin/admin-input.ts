/** Checks of operator input shared by the admin services. */
import type { Queryable } from '../db/database.js';
import { badInput, notFound } from '../errors.js';
import { normalizeUuid } from '../lib/uuid.js';
import { findOrganization } from '../modules/accounts/accounts.store.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Trimmed, non-empty, bounded, and free of control characters (PostgreSQL text cannot hold NUL). */
export function label(name: string, value: string, max = 200): string {
  const trimmed = value.trim();
  if (trimmed === '') throw badInput(`${name} must not be empty`);
  if (trimmed.length > max) throw badInput(`${name} must be at most ${max} characters`);
  if (CONTROL_CHARACTERS.test(trimmed)) throw badInput(`${name} must not contain control characters`);
  return trimmed;
}

export function uuidOf(name: string, value: string): string {
  return (
    normalizeUuid(value) ??
    (() => {
      throw badInput(`${name} must be a uuid`);
    })()
  );
}

/** `organizationId` of operator input, as a uuid of an organization that exists; NOT_FOUND otherwise. */
export async function knownOrganizationId(db: Queryable, organizationId: string): Promise<string> {
  const id = uuidOf('organizationId', organizationId);
  if (!(await findOrganization(db, id))) throw notFound('organization not found');
  return id;
}

/** `workflowUUID` of operator input, as a uuid of a workflow of the organization; BAD_USER_INPUT otherwise. */
export async function knownWorkflowUuid(
  db: Queryable,
  organizationId: string,
  value: string,
): Promise<string> {
  const uuid = uuidOf('workflowUUID', value);
  const [row] = await db.query<{ uuid: string }>(
    'select uuid from workflows where uuid = $1 and organization_id = $2',
    [uuid, organizationId],
  );
  if (!row) throw badInput(`workflowUUID ${uuid} is not a workflow of organization ${organizationId}`);
  return uuid;
}
