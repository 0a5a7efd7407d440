import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../../src/errors.js';

/** The rows of README.md's "## Error codes" table: code and HTTP status. */
function documentedCodes(): Map<string, number> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('\n## Error codes');
  assert.ok(start >= 0, 'README.md has no "## Error codes" section');
  const rest = readme.slice(start + 1);
  const end = rest.indexOf('\n## ');
  const section = end < 0 ? rest : rest.slice(0, end);
  const rows = new Map<string, number>();
  for (const match of section.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*(\d{3})\s*\|.*\S.*\|\s*$/gm)) {
    assert.ok(!rows.has(match[1]!), `${match[1]} is documented twice`);
    rows.set(match[1]!, Number(match[2]));
  }
  return rows;
}

describe('the error code registry', () => {
  it('documents every registered code in the README, with its HTTP status', () => {
    const documented = documentedCodes();
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      assert.ok(documented.has(code), `${code} is missing from README.md's "## Error codes" table`);
      assert.equal(documented.get(code), status, `README.md gives ${code} another status`);
    }
  });

  it('documents no code that the registry does not have', () => {
    for (const code of documentedCodes().keys()) {
      assert.ok(code in ERROR_CODES, `README.md documents ${code}, which src/errors.ts does not register`);
    }
  });
});
