import type { Queryable } from '../../db/database.js';
import { notFound } from '../../errors.js';
import { normalizeUuid } from '../../lib/uuid.js';
import { findWorkflow } from '../workflows/workflows.store.js';

/**
 * The scope a `workflowUUID` input names, by its form alone: `null` when none is given (the whole
 * organization), the uuid in canonical form, or `undefined` when the text is not a uuid, so no
 * workflow has it (reads treat a malformed uuid as an unknown one).
 */
export function workflowUuidOf(given: string | null | undefined): string | null | undefined {
  if (given === undefined || given === null) return null;
  return normalizeUuid(given);
}

/**
 * What a read does with a `workflowUUID` no workflow of the organization may have:
 * - `unchecked`: only its form is checked; a read scoped to an unknown workflow finds no rows of
 *   its own, so it costs no lookup (`undefined`: the read answers nothing);
 * - `none`: the workflow is looked up in the organization, `undefined` when it is not there;
 * - `notFound`: looked up, and its absence is the error `workflow not found`.
 */
export type UnknownWorkflow = 'unchecked' | 'none' | 'notFound';

/**
 * The workflow a read is scoped to, within the caller's organization: `null` for the whole
 * organization (no `workflowUUID` given), the workflow's uuid, or `undefined` when no workflow of
 * the organization can have it (see UnknownWorkflow).
 */
export async function workflowScope(
  ctx: { readonly db: Queryable; readonly organizationId: string },
  given: string,
  unknown: 'notFound',
): Promise<string>;
export async function workflowScope(
  ctx: { readonly db: Queryable; readonly organizationId: string },
  given: string | null | undefined,
  unknown: 'notFound',
): Promise<string | null>;
export async function workflowScope(
  ctx: { readonly db: Queryable; readonly organizationId: string },
  given: string | null | undefined,
  unknown: UnknownWorkflow,
): Promise<string | null | undefined>;
export async function workflowScope(
  ctx: { readonly db: Queryable; readonly organizationId: string },
  given: string | null | undefined,
  unknown: UnknownWorkflow,
): Promise<string | null | undefined> {
  const uuid = workflowUuidOf(given);
  if (uuid === null) return null;
  const known =
    uuid !== undefined && (unknown === 'unchecked' || (await findWorkflow(ctx.db, ctx.organizationId, uuid)));
  if (known) return uuid;
  if (unknown === 'notFound') throw notFound('workflow not found');
  return undefined;
}
