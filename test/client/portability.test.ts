// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/g;
const NODE_ONLY = /\b(?:process\.|Buffer\b|require\(|__dirname|setImmediate\()/;

/** Every file the SDK's entry point reaches through its imports, relative to src/. */
function moduleGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const visit = (file: string) => {
    if (graph.has(file)) return;
    const text = readFileSync(join(SRC, file), 'utf8');
    const specifiers = [...text.matchAll(IMPORT)].map((match) => match[1]!);
    graph.set(file, specifiers);
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) {
        visit(relative(SRC, join(SRC, dirname(file), specifier.replace(/\.js$/, '.ts'))));
      }
    }
  };
  visit(entry);
  return graph;
}

describe('the SDK in a browser', () => {
  const graph = moduleGraph('client/index.ts');

  it('reaches only its own files and the generated schema types', () => {
    assert.deepEqual(
      [...graph.keys()].filter((file) => !file.startsWith('client/')),
      ['schema/schema-types.generated.ts'],
    );
    const packages = [...graph.values()].flat().filter((specifier) => !specifier.startsWith('.'));
    assert.deepEqual(packages, [], 'no package or node: import');
  });

  it('uses nothing that exists only in Node', () => {
    for (const file of graph.keys()) {
      const code = readFileSync(join(SRC, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      assert.doesNotMatch(code, NODE_ONLY, file);
    }
  });
});
