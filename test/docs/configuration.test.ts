// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { configurationTable, currentText } from '../../scripts/docs/generated-sections.js';
import { ConfigError, loadConfig, SETTINGS, settingsList } from '../../src/config.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the configuration, declared once', () => {
  it("is docs/configuration.md's table, as `npm run gen:docs` writes it", () => {
    assert.equal(currentText(read(configurationTable.file), configurationTable), configurationTable.render());
  });

  it('declares every environment variable the source reads, each once', () => {
    const declared = settingsList().map(({ setting }) => setting.variable);
    assert.equal(new Set(declared).size, declared.length);
    assert.ok(declared.length > 60, 'the declaration lists the settings');
    // The declaration is read from the environment it is given, never from process.env itself.
    assert.ok(!/process\.env[.[]/.test(read('src/config.ts')), 'config.ts reads the env it is given');
  });

  it('reads each variable with its default, and refuses a value outside its range naming it', () => {
    const config = loadConfig({});
    assert.equal(config.port, 4000);
    assert.equal(config.limits.maxDepth, 10);
    assert.equal(loadConfig({ WFAPI_MAX_DEPTH: '12' }).limits.maxDepth, 12);
    assert.throws(
      () => loadConfig({ WFAPI_MAX_DEPTH: '101' }),
      /WFAPI_MAX_DEPTH must be an integer between 2 and 100, got "101"/,
    );
    assert.throws(() => loadConfig({ WFAPI_SCHEMA: 'partial' }), ConfigError);
    assert.equal(SETTINGS.limits.maxDepth.variable, 'WFAPI_MAX_DEPTH');
  });

  it('checks overrides against their setting: an unknown key or a value of another kind is refused', () => {
    assert.equal(loadConfig({}, { limits: { requestTimeoutMs: 1 } }).limits.requestTimeoutMs, 1);
    assert.throws(
      () => loadConfig({}, { limits: { maxDepht: 3 } } as never),
      /unknown configuration override limits.maxDepht/,
    );
    assert.throws(() => loadConfig({}, { port: '4000' } as never), /override port is not a value of PORT/);
    assert.equal(loadConfig({}, { adminToken: undefined }).adminToken, undefined);
  });
});
