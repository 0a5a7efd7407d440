import { readFileSync } from 'node:fs';
import { type DocumentNode, parse } from 'graphql';
import { accountsModule } from '../modules/accounts/index.js';
import type { SchemaKind } from '../modules/api-module.js';
import { modulesOf } from '../modules/index.js';

const SCALARS = new URL('./scalars.graphql', import.meta.url);
const BASE = new URL('./base.graphql', import.meta.url);
/** The operator schema's own part (contract section 2). */
export const ADMIN_SDL = new URL('../admin/admin.graphql', import.meta.url);
/** The operator schema's parts: its own root types, then the alert rules and objectives that extend them. */
export const ADMIN_SDL_PARTS = [
  ADMIN_SDL,
  new URL('../alerts/alerts.graphql', import.meta.url),
  new URL('../objectives/objectives.graphql', import.meta.url),
];

export function readSdl(parts: readonly URL[]): string {
  return parts.map((part) => readFileSync(part, 'utf8')).join('\n');
}

/**
 * The public schema: the scalars, the root types, then one part per module. The hosted kind is
 * the contract's section 1 exactly; the extended kind (the default) adds section 5.
 */
export function publicSdlDocument(kind: SchemaKind = 'extended'): DocumentNode {
  return parse(readSdl([SCALARS, BASE, ...modulesOf(kind).map((module) => module.sdl)]));
}

/** The operator schema: the scalars and account types it shares, plus its own root types. */
export function adminSdlDocument(): DocumentNode {
  return parse(readSdl([SCALARS, accountsModule.sdl, ...ADMIN_SDL_PARTS]));
}
