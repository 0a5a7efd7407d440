import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../../src/errors.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The rows of docs/errors.md's table: code and HTTP status. */
function documentedCodes(): Map<string, number> {
  const rows = new Map<string, number>();
  for (const match of read('docs/errors.md').matchAll(
    /^\|\s*`([A-Z_]+)`\s*\|\s*(\d{3})\s*\|.*\S.*\|\s*$/gm,
  )) {
    assert.ok(!rows.has(match[1]!), `${match[1]} is documented twice`);
    rows.set(match[1]!, Number(match[2]));
  }
  return rows;
}

describe('the error code registry', () => {
  it('documents every registered code in docs/errors.md, with its HTTP status', () => {
    const documented = documentedCodes();
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      assert.ok(documented.has(code), `${code} is missing from the table of docs/errors.md`);
      assert.equal(documented.get(code), status, `docs/errors.md gives ${code} another status`);
    }
  });

  it('documents no code that the registry does not have', () => {
    for (const code of documentedCodes().keys()) {
      assert.ok(
        code in ERROR_CODES,
        `docs/errors.md documents ${code}, which src/errors.ts does not register`,
      );
    }
  });

  it("names every code in the README's Error codes section and links to docs/errors.md", () => {
    const readme = read('README.md');
    const start = readme.indexOf('\n## Error codes');
    assert.ok(start >= 0, 'README.md has no "## Error codes" section');
    const rest = readme.slice(start + 1);
    const section = rest.slice(0, rest.indexOf('\n## ') < 0 ? undefined : rest.indexOf('\n## '));
    assert.ok(section.includes('](docs/errors.md)'), 'the section links to docs/errors.md');
    for (const code of Object.keys(ERROR_CODES)) assert.ok(section.includes(`\`${code}\``), code);
  });
});
