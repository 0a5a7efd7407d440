import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DocumentNode, parse } from 'graphql';

/** Type definitions both schemas use: the scalars, and organizations and their accounts. */
const SHARED_SDL_PARTS = ['schema/scalars.graphql', 'modules/accounts/accounts.graphql'] as const;

/** The public schema, one part per domain module; together they are the contract's section 1. */
const SDL_PARTS = [
  ...SHARED_SDL_PARTS,
  'schema/base.graphql',
  'modules/workflows/workflows.graphql',
  'modules/activity/activity.graphql',
  'modules/deployments/deployments.graphql',
  'modules/executions/executions.graphql',
] as const;

const SRC_ROOT = new URL('../', import.meta.url);

export function readSdl(parts: readonly string[] = SDL_PARTS): string {
  return parts.map((part) => readFileSync(fileURLToPath(new URL(part, SRC_ROOT)), 'utf8')).join('\n');
}

export function publicSdlDocument(): DocumentNode {
  return parse(readSdl());
}

/** The operator schema (contract section 2): the shared definitions plus its own root types. */
export const ADMIN_SDL_PART = 'admin/admin.graphql';

export function adminSdlDocument(): DocumentNode {
  return parse(readSdl([...SHARED_SDL_PARTS, ADMIN_SDL_PART]));
}
