// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Browser, chromium, type Page } from 'playwright-core';
import { enginePath, requireEngine } from '../harness/engines.js';
import { eventually } from '../harness/eventually.js';
import { createTenant, execution, ingest, type Tenant, workflow } from '../harness/fixtures.js';
import { useServer } from '../harness/suite.js';
import { caughtUp, requestLine } from './caught-up.js';

/** Debian's Chromium (CI installs it with `apt-get install -y chromium`); Playwright never downloads one. */
const needsChromium = await requireEngine('chromium');

/** Reads or writes the CodeMirror 5 editor inside `selector` (GraphiQL 3's editors). */
const EDITOR = (selector: string) =>
  `document.querySelector(${JSON.stringify(`${selector} .CodeMirror`)})?.CodeMirror`;
const QUERY_EDITOR = EDITOR('.graphiql-query-editor');
const HEADERS_EDITOR = EDITOR('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
const RESPONSE = EDITOR('.graphiql-response');

/**
 * Waits until `expression` is truthy in the page. Polled through page.evaluate, which the page's
 * Content-Security-Policy does not govern (waitForFunction evaluates a string with eval, which it
 * refuses).
 */
async function until(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await sleep(50);
  }
}

interface Sent {
  readonly body: string;
  readonly authorization: string | undefined;
  status?: number;
}

describe('GraphiQL in a real browser', needsChromium, () => {
  const ctx = useServer();
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({
      executablePath: enginePath('chromium'),
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  after(async () => {
    await browser?.close();
  });

  /**
   * Opens GraphiQL in a fresh browser context (no stored tabs or headers), recording every POST
   * to /graphql and refusing any file from another origin.
   */
  async function open(t: { after(fn: () => Promise<void>): void }) {
    const context = await browser.newContext();
    t.after(() => context.close());
    const page = await context.newPage();
    const origin = new URL(ctx.server.url).origin;
    const foreign: string[] = [];
    const posts: Sent[] = [];
    /** Every request the page made, in order, as `METHOD /path?query`. */
    const requests: string[] = [];
    const pageErrors: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    page.on('request', (request) => {
      requests.push(requestLine(request.method(), request.url()));
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/graphql') {
        posts.push({ body: request.postData() ?? '', authorization: request.headers().authorization });
      }
    });
    page.on('response', (response) => {
      const sent = posts.find((p) => p.status === undefined && response.request().postData() === p.body);
      if (sent && response.request().method() === 'POST') sent.status = response.status();
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // Whatever the page's Content-Security-Policy refuses is reported as an error too.
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) pageErrors.push(message.text());
    });
    const response = await page.goto(`${ctx.server.url}/graphql`);
    assert.equal(response?.status(), 200);
    const headers = response!.headers();
    await until(page, `!!${QUERY_EDITOR}`, 30_000);
    await until(page, `!!${HEADERS_EDITOR}`);
    return { page, posts, requests, foreign, pageErrors, headers };
  }

  const setHeaders = (page: Page, headers: Record<string, string>) =>
    page.evaluate(`${HEADERS_EDITOR}.setValue(${JSON.stringify(JSON.stringify(headers))})`);

  async function run(page: Page): Promise<{ data?: unknown; extensions?: { dataAsOf?: string } }> {
    await page.evaluate(`${RESPONSE}.setValue('')`);
    await page.click('.graphiql-execute-button');
    await until(page, `(${RESPONSE}?.getValue() ?? '').trim().startsWith('{')`);
    return JSON.parse((await page.evaluate(`${RESPONSE}.getValue()`)) as string);
  }

  async function seeded(): Promise<Tenant> {
    const tenant = await createTenant(ctx.db, 'Browser Org');
    const wf = workflow(tenant.organizationId, { name: 'browser-flow' });
    await ingest(ctx.db, [wf, execution(tenant.organizationId, wf.uuid as string, { status: 'FAILURE' })]);
    return tenant;
  }

  it('opens on an example query and the key template, and sends nothing before a key is there', async (t) => {
    const { page, posts, requests, foreign, pageErrors } = await open(t);
    const prefilled = (await page.evaluate(`${HEADERS_EDITOR}.getValue()`)) as string;
    assert.deepEqual(JSON.parse(prefilled), { Authorization: 'Apikey <your key>' });
    const example = (await page.evaluate(`${QUERY_EDITOR}.getValue()`)) as string;
    assert.match(example, /query Overview \{[\s\S]*workflows\(input: \{ page: \{ size: 5 \} \}\)/);
    // Running the example without a key is answered by the page itself.
    const answer = (await run(page)) as { errors: Array<{ message: string }> };
    assert.match(answer.errors[0]!.message, /Nothing was sent: the Headers tab needs your API key/);
    // GraphiQL fetches a schema when it mounts, before its editors show: had it sent one, or had
    // the run sent the query, the request would be recorded before the page's own.
    await caughtUp(page, requests);
    assert.deepEqual(posts, [], 'no request to /graphql without a key: no failed authentication is charged');
    assert.deepEqual(foreign, [], 'the page requested files from another origin');
    assert.deepEqual(pageErrors, []);
  });

  it('sends a Content-Security-Policy that forbids framing and foreign scripts, and the page works under it', async (t) => {
    const { page, headers, pageErrors } = await open(t);
    const policy = headers['content-security-policy'] ?? '';
    assert.match(policy, /frame-ancestors 'none'/);
    assert.match(
      policy,
      /script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'(;|$)/,
      "only this server's files and the page's own script",
    );
    assert.doesNotMatch(policy, /unsafe-eval|script-src[^;]*unsafe-inline/);
    assert.equal(headers['x-frame-options'], 'DENY');
    assert.equal(headers['x-content-type-options'], 'nosniff');
    await setHeaders(page, { Authorization: `Apikey ${(await seeded()).key}` });
    const answer = (await run(page)) as { data?: { getOrganization?: { displayName: string } } };
    assert.equal(answer.data?.getOrganization?.displayName, 'Browser Org');
    // Framed by a page of another origin, the browser refuses to show it.
    const framing = await page.context().newPage();
    await framing.setContent(`<iframe src="${ctx.server.url}/graphql"></iframe>`);
    const frame = framing.frames()[1];
    assert.ok(frame, 'the iframe is there');
    // Refused or shown, the frame has loaded: what it holds then is what the browser will show.
    await frame.waitForLoadState('load');
    assert.equal(
      (await frame?.evaluate('!!document.querySelector("#graphiql")').catch(() => false)) ?? false,
      false,
    );
    assert.deepEqual(pageErrors, []);
  });

  it('fetches the schema once a key is set, once, and runs the example query as it is', async (t) => {
    const tenant = await seeded();
    const { page, posts, pageErrors } = await open(t);
    await setHeaders(page, { Authorization: `Apikey ${tenant.key}` });
    await eventually(
      () => posts.some((p) => p.body.includes('IntrospectionQuery') && p.status !== undefined),
      () => `no schema fetch after the key was set: ${JSON.stringify(posts)}`,
    );
    const introspections = posts.filter((p) => p.body.includes('IntrospectionQuery'));
    assert.equal(introspections.length, 1);
    assert.equal(introspections[0]!.authorization, `Apikey ${tenant.key}`);
    assert.equal(introspections[0]!.status, 200);
    // With the schema, the docs explorer lists the queries.
    await page.click('[aria-label="Show Documentation Explorer"]');
    await page.waitForSelector('.graphiql-doc-explorer >> text=workflowExecutions', { timeout: 15_000 });

    const result = await run(page);
    assert.match(result.extensions?.dataAsOf ?? '', /^\d{4}-\d{2}-\d{2}T/, 'the answer says how fresh it is');
    assert.deepEqual(
      { data: result.data },
      {
        data: {
          getOrganization: { displayName: 'Browser Org' },
          workflows: {
            count: 1,
            data: [
              {
                name: 'browser-flow',
                status: 'ACTIVE',
                executedAt: '2026-01-02T00:00:00Z',
                executionCountByStatus: { success: 0, failure: 1 },
              },
            ],
          },
        },
      },
    );
    assert.deepEqual(pageErrors, []);
  });

  it('fetches the schema at once on a later visit with the key kept from the first, and again for a new key', async (t) => {
    const tenant = await seeded();
    const other = await createTenant(ctx.db, 'Other Org');
    const { page, posts } = await open(t);
    await setHeaders(page, { Authorization: `Apikey ${tenant.key}` });
    // GraphiQL keeps the headers (shouldPersistHeaders) after a short pause: once they are stored.
    await until(
      page,
      `(localStorage.getItem('graphiql:headers') ?? '').includes(${JSON.stringify(tenant.key)})`,
    );
    const before = posts.length;
    await page.reload();
    await until(page, `!!${QUERY_EDITOR}`, 30_000);
    await eventually(
      () => posts.slice(before).some((p) => p.body.includes('IntrospectionQuery')),
      'no schema fetch on reload with a kept key',
    );
    await setHeaders(page, { Authorization: `Apikey ${other.key}` });
    await eventually(
      () =>
        posts.some((p) => p.body.includes('IntrospectionQuery') && p.authorization === `Apikey ${other.key}`),
      'no schema fetch for the new key',
    );
  });
});
