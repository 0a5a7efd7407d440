import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe("the README's configuration table", () => {
  it('lists every environment variable src/config.ts reads', () => {
    const names = [...read('src/config.ts').matchAll(/\(env, '([A-Z0-9_]+)'/g)].map((m) => m[1]!);
    assert.ok(names.length > 30, 'the pattern still finds what config.ts reads');
    const readme = read('README.md');
    const start = readme.indexOf('\n## Configuration\n');
    const table = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const missing = names.filter((name) => !new RegExp(`^\\| \`${name}\``, 'm').test(table));
    assert.deepEqual(missing, []);
  });
});
