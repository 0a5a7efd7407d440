import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { ConfigOverrides } from '../../src/config.js';
import { createWorld, recordsBetween, toNdjsonLine } from '../../src/simulate/index.js';
import { openTestDatabase, type TestDatabase } from '../harness/database.js';
import { enginePath } from '../harness/engines.js';
import { createTenant, ingest, type Tenant } from '../harness/fixtures.js';
import { startServer, type TestServer } from '../harness/server.js';
import { requestLine } from './caught-up.js';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
];

const DAY = 86_400_000;
const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** One database, one server and one browser for a test file, with simulated data ending now. */
export interface ConsoleWorld {
  readonly database: TestDatabase;
  readonly server: TestServer;
  readonly browser: Browser;
  readonly tenant: Tenant;
  /**
   * The instant the world stands at when the test fixed one: the data ends there and every page's
   * clock reads it (the server's is the test's own, from `setup.options.now`); absent, both run on.
   */
  readonly now: number | undefined;
  /** POST /graphql with the tenant's key; fails on any error. */
  // biome-ignore lint/suspicious/noExplicitAny: tests walk arbitrary JSON answers
  api(query: string, variables?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** What the tenant's simulated history holds: by default three days of six workflows. */
export interface WorldPlan {
  readonly workflows: number;
  readonly executions: number;
  readonly days: number;
  /** The simulator's seed: two tenants of one database need two, their uuids being the seed's. */
  readonly seed?: string;
}
const DEFAULT_PLAN: WorldPlan = { workflows: 6, executions: 1200, days: 3 };

/**
 * `setup`: the server's configuration and options, e.g. an admin token or a clock of the test's,
 * and `now`, the fixed instant the data ends at and the pages' clocks read (see ConsoleWorld.now).
 */
export async function openConsoleWorld(
  plan: WorldPlan = DEFAULT_PLAN,
  setup: { config?: ConfigOverrides; options?: Parameters<typeof startServer>[2]; now?: number } = {},
): Promise<ConsoleWorld> {
  const database = await openTestDatabase();
  const server = await startServer(database.db, setup.config, setup.options);
  const browser = await chromium.launch({ executablePath: enginePath('chromium'), args: CHROMIUM_ARGS });
  const close = async () => {
    await browser.close();
    await server.close();
    await database.close();
  };
  let tenant: Tenant;
  try {
    tenant = await createTenant(database.db, 'Console Org');
    await seed(database, tenant.organizationId, plan, setup.now);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    database,
    server,
    browser,
    tenant,
    now: setup.now,
    async api(query, variables) {
      const answer = await server.gql(tenant.key, query, variables);
      assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
      return answer.body.data;
    },
    close,
  };
}

/** Simulated days of workflows ending at `now`, stored through ingestion as NDJSON records. */
export async function seed(
  database: TestDatabase,
  organizationId: string,
  plan: WorldPlan,
  now = Date.now(),
): Promise<void> {
  const world = createWorld({
    seed: plan.seed ?? 'console',
    organizationId,
    workflows: plan.workflows,
    executions: plan.executions,
    days: plan.days,
    start: now - plan.days * DAY,
  });
  const records = [...recordsBetween(world, Number.NEGATIVE_INFINITY, now)].map(
    (record) => JSON.parse(toNdjsonLine(record)) as Record<string, unknown>,
  );
  for (let i = 0; i < records.length; i += 5000) await ingest(database.db, records.slice(i, i + 5000));
}

/** A page of a fresh context, recording console errors, page errors and requests to other origins. */
export interface ConsolePage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Console errors, uncaught exceptions and requests to another origin: all must stay empty. */
  readonly problems: string[];
  /** Every request body sent to /graphql with its Authorization header. */
  readonly posts: Array<{ body: string; authorization: string | undefined }>;
  /** Every request the page made, in order, as `METHOD /path?query` (see caughtUp). */
  readonly requests: string[];
}

export async function openPage(
  world: ConsoleWorld,
  options: { colorScheme?: 'light' | 'dark' } = {},
): Promise<ConsolePage> {
  const context = await world.browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    viewport: { width: 1280, height: 900 },
    timezoneId: 'America/New_York',
    locale: 'en-US',
    // axe is injected as an inline script, which the console's Content-Security-Policy forbids.
    bypassCSP: true,
  });
  const page = await context.newPage();
  // Date.now() and new Date() in the page read the world's instant; the page's timers still run.
  if (world.now !== undefined) await page.clock.setFixedTime(world.now);
  const origin = new URL(world.server.url).origin;
  const problems: string[] = [];
  const posts: ConsolePage['posts'] = [];
  const requests: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    problems.push(`request to another origin: ${url}`);
    return route.abort();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    requests.push(requestLine(request.method(), request.url()));
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/graphql') {
      posts.push({ body: request.postData() ?? '', authorization: request.headers().authorization });
    }
  });
  return { page, context, problems, posts, requests };
}

/** Waits until the view has its data and every chart on it is drawn. */
export async function complete(page: Page, view: string): Promise<void> {
  await page.waitForSelector(`[data-view="${view}"][data-complete="true"]`, { timeout: 20_000 });
  await page.waitForFunction(
    () =>
      Array.from(document.querySelectorAll('.chart-canvas')).every(
        (c) => c.getAttribute('data-drawn') === 'true',
      ),
    undefined,
    { timeout: 10_000 },
  );
}

/** axe-core's serious and critical violations on the page as it is. */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.addScriptTag({ content: AXE });
  const result = (await page.evaluate('window.axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>;
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
}

/** The text of each element matching `selector`, trimmed. */
export function texts(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (elements) => elements.map((e) => (e.textContent ?? '').trim()));
}

/** A fresh tab signed in through the link's fragment (as the demo banner prints it) at `path`. */
export async function openSignedIn(
  world: ConsoleWorld,
  path = '/',
  options: { colorScheme?: 'light' | 'dark' } = {},
): Promise<ConsolePage> {
  const tab = await openPage(world, options);
  const url = new URL(path, world.server.url);
  url.hash = `key=${encodeURIComponent(world.tenant.key)}`;
  await tab.page.goto(url.toString());
  return tab;
}
