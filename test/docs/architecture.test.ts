// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

// test: any-database
const ROOT = new URL('../../', import.meta.url);

describe('docs/architecture.md', () => {
  it('names every top folder of src/, so the map of the house keeps up with it', () => {
    const map = readFileSync(new URL('docs/architecture.md', ROOT), 'utf8');
    const folders = readdirSync(new URL('src/', ROOT), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    assert.ok(folders.length > 10, 'src/ has its folders');
    const missing = folders.filter((folder) => !new RegExp(`^ .*(?<=\\s)${folder}/\\s`, 'm').test(map));
    assert.deepEqual(missing, []);
  });
});
