import { readFileSync } from 'node:fs';
import { type DocumentNode, parse } from 'graphql';
import type { SchemaKind } from '../config.js';
import { modulesOf } from '../modules/index.js';

/** The scalars every schema shares. */
export const SCALARS_SDL = new URL('../schema/scalars.graphql', import.meta.url);
const BASE = new URL('../schema/base.graphql', import.meta.url);

export function readSdl(parts: readonly URL[]): string {
  return parts.map((part) => readFileSync(part, 'utf8')).join('\n');
}

/**
 * The public schema: the scalars, the root types, then one part per module. The hosted kind is
 * the contract's section 1 exactly; the extended kind (the default) adds section 5.
 */
export function publicSdlDocument(kind: SchemaKind = 'extended'): DocumentNode {
  return parse(readSdl([SCALARS_SDL, BASE, ...modulesOf(kind).map((module) => module.sdl)]));
}
