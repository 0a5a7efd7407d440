import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { createTenant } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';

/** Debian's Chromium; CI installs it with `apt-get install -y chromium`. Playwright never downloads one. */
const CHROMIUM = '/usr/bin/chromium';

/** Reads or writes the CodeMirror 5 editor inside `selector` (GraphiQL 3's editors). */
const EDITOR = (selector: string) =>
  `document.querySelector(${JSON.stringify(`${selector} .CodeMirror`)})?.CodeMirror`;

describe('GraphiQL in a real browser', () => {
  const ctx = useServer();
  let browser: Browser;
  before(async () => {
    // A missing browser fails the suite rather than skipping it: CI must install Chromium.
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install it with "apt-get install -y chromium"`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  after(async () => {
    await browser?.close();
  });

  it('runs a query with a real API key and shows the organization in the result pane, loading nothing from elsewhere', async (t) => {
    const tenant = await createTenant(ctx.db, 'Browser Org');
    const page = await browser.newPage();
    t.after(() => page.close());
    const origin = new URL(ctx.server.url).origin;
    const foreign: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const response = await page.goto(`${ctx.server.url}/graphql`);
    assert.equal(response?.status(), 200);
    await page.waitForFunction(`!!${EDITOR('.graphiql-query-editor')}`, undefined, { timeout: 30_000 });
    await page.waitForFunction(`!!${EDITOR('.graphiql-editor-tool .graphiql-editor:not(.hidden)')}`);

    const prefilled = (await page.evaluate(
      `${EDITOR('.graphiql-editor-tool .graphiql-editor:not(.hidden)')}.getValue()`,
    )) as string;
    assert.deepEqual(JSON.parse(prefilled), { Authorization: 'Apikey <your key>' });

    const headers = JSON.stringify({ Authorization: `Apikey ${tenant.key}` });
    await page.evaluate(
      `${EDITOR('.graphiql-editor-tool .graphiql-editor:not(.hidden)')}.setValue(${JSON.stringify(headers)})`,
    );
    await page.evaluate(
      `${EDITOR('.graphiql-query-editor')}.setValue("{ getOrganization { displayName } }")`,
    );
    await page.click('.graphiql-execute-button');

    await page.waitForFunction(
      `(${EDITOR('.graphiql-response')}?.getValue() ?? '').includes('displayName')`,
      undefined,
      {
        timeout: 15_000,
      },
    );
    const result = JSON.parse((await page.evaluate(`${EDITOR('.graphiql-response')}.getValue()`)) as string);
    assert.deepEqual(result, { data: { getOrganization: { displayName: 'Browser Org' } } });
    assert.deepEqual(foreign, [], 'the page requested files from another origin');
    assert.deepEqual(pageErrors, []);
  });
});
