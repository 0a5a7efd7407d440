// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { clientSnippets, compile, snippetFile } from '../harness/client-snippets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const markdown = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name)),
];

describe("the documentation's typed-client snippets", () => {
  // Each snippet as a file of its own at the checkout's root, where `wfapi/client` resolves to
  // this package itself through its package.json `exports`, as it does from a user's project.
  const files = new Map(
    markdown.flatMap((path) =>
      clientSnippets(readFileSync(path, 'utf8')).map(
        (code, index) => [snippetFile(ROOT, relative(ROOT, path), index), code] as const,
      ),
    ),
  );

  it('are found in the README and docs/', () => {
    const sources = [...files.keys()].map((file) => relative(ROOT, file));
    assert.ok(
      sources.some((file) => file.startsWith('README-md-')),
      `no snippet of the README: ${sources}`,
    );
    assert.ok(sources.length >= 2, `only ${sources}`);
  });

  it("compile under tsc --strict against the package's own types, without a diagnostic", () => {
    const { diagnostics, resolved } = compile(files);
    assert.deepEqual(diagnostics, []);
    for (const [file, types] of resolved) {
      assert.equal(types, join(ROOT, 'dist/client/index.d.ts'), `wfapi/client from ${file}`);
    }
  });
});
