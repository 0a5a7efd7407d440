// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { currentText, errorsTable } from '../../scripts/docs/generated-sections.js';
import { ERROR_CODES, ERRORS } from '../../src/errors.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The TypeScript files under `dir`, recursively. */
function sourceFiles(dir: URL): URL[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(new URL(`${entry.name}/`, dir))
      : entry.name.endsWith('.ts')
        ? [new URL(entry.name, dir)]
        : [],
  );
}

describe('the error registry', () => {
  it("is docs/errors.md's table, as `npm run gen:docs` writes it", () => {
    assert.equal(currentText(read(errorsTable.file), errorsTable), errorsTable.render());
  });

  it('gives each way to fail its own code and status pair, and only the codes of the contract', () => {
    const pairs = Object.values(ERRORS).map(({ code, status }) => `${code} ${status}`);
    assert.equal(new Set(pairs).size, pairs.length);
    assert.deepEqual([...ERROR_CODES].sort(), [
      'BAD_USER_INPUT',
      'FORBIDDEN',
      'GRAPHQL_PARSE_FAILED',
      'GRAPHQL_VALIDATION_FAILED',
      'INTERNAL_SERVER_ERROR',
      'NOT_FOUND',
      'RATE_LIMITED',
      'SERVICE_UNAVAILABLE',
      'UNAUTHENTICATED',
    ]);
  });

  it('builds every error answer from the registry: no route sets an error status of its own', () => {
    const offenders = sourceFiles(new URL('../../src/', import.meta.url)).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\.code\((4\d\d|5\d\d)\)|status: (4\d\d|5\d\d)\b/g)]
        .filter(() => !file.pathname.endsWith('/src/errors.ts'))
        .map((match) => `${file.pathname.split('/src/')[1]}: ${match[0]}`),
    );
    assert.deepEqual(offenders, []);
  });

  it("names every code in the README's Error codes section and links to docs/errors.md", () => {
    const readme = read('README.md');
    const start = readme.indexOf('\n## Error codes');
    assert.ok(start >= 0, 'README.md has no "## Error codes" section');
    const rest = readme.slice(start + 1);
    const section = rest.slice(0, rest.indexOf('\n## ') < 0 ? undefined : rest.indexOf('\n## '));
    assert.ok(section.includes('](docs/errors.md)'), 'the section links to docs/errors.md');
    for (const code of ERROR_CODES) assert.ok(section.includes(`\`${code}\``), code);
  });
});
