// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * The house, bottom to top: a folder (or a file at the top of src/) may import only from a layer
 * below its own. Units on one line are peers and do not import each other. docs/architecture.md
 * draws the same map.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['errors.ts'],
  ['config.ts'],
  ['lib/'],
  ['stats/', 'schema/'],
  ['db/'],
  ['rollups/'],
  ['modules/'],
  ['http/'],
  ['graphql/'],
  ['admin/', 'ingest/'],
  ['simulate/', 'events/', 'objectives/'],
  ['alerts/'],
  ['operator/', 'metrics/', 'mcp/'],
  ['client/'],
  ['present/'],
  ['console/'],
  ['app.ts'],
  ['cli/'],
];

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const SPECIFIER =
  /^\s*(import|export)\s+(type\s+)?[^'";]*?\s*from\s+'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/gm;

/** The source file an import names by its compiled name: `x.js` is `x.ts` or `x.tsx`. */
function sourceOf(path: string): string {
  const ts = path.replace(/\.js$/, '.ts');
  return existsSync(ts) ? ts : `${ts}x`;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)].map((match) => ({
    from: file,
    to: sourceOf(resolve(dirname(file), match[3] ?? match[4] ?? '')),
    typeOnly: Boolean(match[2]),
  }));
}

/** The unit a file belongs to: its top folder under src/ ("db/"), or its own name at the top ("app.ts"). */
function unitOf(file: string): string {
  const parts = relative(SRC, file).split('/');
  const [top = ''] = parts;
  return parts.length === 1 ? top : `${top}/`;
}

const files = sourceFiles(SRC);
const imports = files.flatMap(importsOf);
const layerOf = new Map(LAYERS.flatMap((units, layer) => units.map((unit) => [unit, layer] as const)));

describe('the layers of src/', () => {
  it('place every folder and top file of src/ in one layer', () => {
    const units = [...new Set(files.map(unitOf))].sort();
    assert.ok(units.length > 15, 'src/ has its folders');
    assert.deepEqual(
      units.filter((unit) => !layerOf.has(unit)),
      [],
    );
    assert.deepEqual(
      [...layerOf.keys()].filter((unit) => !units.includes(unit)),
      [],
    );
  });

  it('import only downward: no import runs back up a layer or across to a peer', () => {
    const wrong = imports
      .filter(({ from, to }) => unitOf(from) !== unitOf(to))
      .filter(({ from, to }) => (layerOf.get(unitOf(to)) ?? Infinity) >= (layerOf.get(unitOf(from)) ?? -1))
      .map(({ from, to }) => `${relative(SRC, from)} -> ${relative(SRC, to)}`);
    assert.deepEqual(wrong, []);
  });

  it('hold no cycle between files (type-only imports aside)', () => {
    const next = new Map<string, string[]>();
    for (const { from, to, typeOnly } of imports)
      if (!typeOnly) next.set(from, [...(next.get(from) ?? []), to]);
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const to of next.get(file) ?? []) visit(to, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    assert.deepEqual(cycles, []);
  });
});
