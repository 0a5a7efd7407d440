import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DocumentNode, parse } from 'graphql';

/** The public schema, one part per domain module; together they are the contract's section 1. */
const SDL_PARTS = [
  'schema/base.graphql',
  'modules/accounts/accounts.graphql',
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
