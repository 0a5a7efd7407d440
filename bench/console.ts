import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ServerProcess } from './lib/server-process.js';

/**
 * The web console in Chromium on `npm start`'s demo data (PGlite, a month of simulated
 * executions, live traffic on).
 *
 *   node --import tsx bench/console.ts [--runs 5] [--data-dir DIR] [--requests]
 *
 * For each view, `runs` fresh tabs (nothing cached) opened through the banner's console link:
 * the time from navigation to the view complete (its data shown and every chart drawn); the
 * JavaScript shipped (bytes on the wire, gzipped); and the longest frame while a 100-row
 * executions table is replaced by the next 100 rows. Prints medians beside the targets and
 * writes bench/results/console.{json,md}.
 *
 * `--data-dir DIR` keeps the demo's data in DIR (made if missing, reused after: the month then
 * loads once, and each later run only fills the gap since the last); `--requests` prints each
 * view's `POST /graphql` requests of its last run (operation names, milliseconds from the view's
 * start to the request sent and answered), to see where a view's time goes.
 */

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    port: { type: 'string', default: '4703' },
    'data-dir': { type: 'string' },
    requests: { type: 'boolean', default: false },
  },
});
const runs = Number(args.runs);
const command = `node --import tsx bench/console.ts --runs ${runs}`;
const keepData = args['data-dir'] !== undefined;
const CHROMIUM = '/usr/bin/chromium';
const TARGETS = { overviewMs: 1000, pageMs: 1000, jsGzipKb: 250, frameMs: 50 };

console.log(`# ${command}`);
const dataDir = args['data-dir'] ?? mkdtempSync(join(tmpdir(), 'wfapi-console-bench-'));
mkdirSync(dataDir, { recursive: true });
let output = '';
let loaded: () => void = () => undefined;
const complete = new Promise<void>((resolve) => {
  loaded = resolve;
});
const server = await ServerProcess.start({ WFAPI_DATA_DIR: dataDir }, Number(args.port), {
  command: 'demo',
  timeoutMs: 180_000,
  onOutput: (text) => {
    output += text;
    // A first start loads the month in the background; a start on a reused directory whose
    // month is whole says so in its banner.
    if (output.includes('demo history complete') || /loading\s+complete/.test(output)) loaded();
    if (process.env.BENCH_VERBOSE) process.stderr.write(text);
  },
});
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const times = new Map<string, number[]>();
const frames: number[] = [];
let jsBytes = 0;
let browser: Browser | undefined;
try {
  await complete;
  const link = /console\s+(http:\/\/\S+#key=\S+)/.exec(output)?.[1];
  if (!link) throw new Error(`the demo banner printed no console link:\n${output}`);
  const key = decodeURIComponent(new URL(link).hash.slice('#key='.length));

  async function ask<T>(query: string): Promise<T> {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Apikey ${key}` },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as { data: T; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  }
  const { workflows } = await ask<{ workflows: { data: Array<{ uuid: string; executionCount: number }> } }>(
    '{ workflows(input: {page: {size: 100}}) { data { uuid executionCount } } }',
  );
  const busiest = [...workflows.data].sort((a, b) => b.executionCount - a.executionCount)[0]!;
  const { workflowExecutions } = await ask<{ workflowExecutions: { data: Array<{ uuid: string }> } }>(
    `{ workflowExecutions(input: {workflowUuid: "${busiest.uuid}", status: [FAILURE], page: {size: 1}}) { data { uuid } } }`,
  );
  const execution = workflowExecutions.data[0]?.uuid ?? '';

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });

  /** Resolves with the page's clock (ms since navigation began) when the view is complete. */
  async function completedAt(page: Page, view: string): Promise<number> {
    const handle = await page.waitForFunction(
      (name) => {
        const done =
          document.querySelector(`[data-view="${name}"][data-complete="true"]`) &&
          Array.from(document.querySelectorAll('.chart-canvas')).every(
            (c) => c.getAttribute('data-drawn') === 'true',
          );
        return done ? performance.now() : false;
      },
      view,
      { polling: 'raf', timeout: 30_000 },
    );
    return (await handle.jsonValue()) as number;
  }

  /** The page's `POST /graphql` requests: their operation names, when each was sent and answered. */
  function traceRequests(page: Page) {
    const start = Date.now();
    const seen: Array<{ fields: string; sent: number; answered?: number }> = [];
    const byRequest = new Map<unknown, (typeof seen)[number]>();
    page.on('request', (request) => {
      if (request.method() !== 'POST' || !request.url().endsWith('/graphql')) return;
      const query = String((JSON.parse(request.postData() ?? '{}') as { query?: string }).query ?? '');
      const fields =
        /^\s*(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? query.replace(/\s+/g, ' ').slice(0, 80);
      const entry = { fields, sent: Date.now() - start };
      seen.push(entry);
      byRequest.set(request, entry);
    });
    page.on('requestfinished', (request) => {
      const entry = byRequest.get(request);
      if (entry) entry.answered = Date.now() - start;
    });
    return {
      report: () =>
        seen
          .map(
            (e) =>
              `  ${String(e.sent).padStart(5)} -> ${String(e.answered ?? '?').padStart(5)} ms  ${e.fields}`,
          )
          .join('\n'),
    };
  }

  const VIEWS: Array<[string, string, string]> = [
    ['overview', '/', 'overview'],
    ['workflows', '/?view=workflows', 'workflows'],
    ['workflow', `/?view=workflow&uuid=${busiest.uuid}`, 'workflow'],
    ['execution', `/?view=execution&uuid=${execution}`, 'execution'],
    ['errors', '/?view=errors', 'errors'],
    ['capabilities', '/?view=capabilities', 'capabilities'],
    ['log search', '/?view=logs&q=error', 'logs'],
  ];

  for (let run = 0; run < runs + 1; run++) {
    for (const [name, path, view] of VIEWS) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const url = new URL(path, server.url);
      url.hash = new URL(link).hash;
      const requests = args.requests && run === runs ? traceRequests(page) : undefined;
      await page.goto(url.toString());
      const ms = await completedAt(page, view);
      if (requests) console.log(`${name} (${ms.toFixed(0)} ms):\n${requests.report()}`);
      jsBytes = (await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .filter((e) => (e as PerformanceResourceTiming).initiatorType === 'script')
          .reduce((sum, e) => sum + (e as PerformanceResourceTiming).encodedBodySize, 0),
      )) as number;
      // The first round warms the server (bundle built and compressed, caches filled); it is not counted.
      if (run > 0) times.set(name, [...(times.get(name) ?? []), ms]);
      await context.close();
    }
  }

  // The longest frame while the executions table swaps 100 rows for the next 100.
  for (let run = 0; run < runs; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const url = new URL(`/?view=workflow&uuid=${busiest.uuid}&size=100`, server.url);
    url.hash = new URL(link).hash;
    await page.goto(url.toString());
    await completedAt(page, 'workflow');
    // A string, not a function: tsx would wrap a function's inner names in a helper the page lacks.
    await page.evaluate(`(() => {
    window.frames_ = [];
    window.stop_ = false;
    let last = performance.now();
    const step = (now) => {
      window.frames_.push(now - last);
      last = now;
      if (!window.stop_) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  })()`);
    const first = await page.locator('tr[data-execution]').first().getAttribute('data-execution');
    await page.locator('[data-section="executions"] .pager a:has-text("Next")').click();
    await page.waitForFunction(
      (before) => {
        const rows = document.querySelectorAll('tr[data-execution]');
        return rows.length === 100 && rows[0]?.getAttribute('data-execution') !== before;
      },
      first,
      { polling: 'raf' },
    );
    await page.waitForTimeout(200);
    const longest = (await page.evaluate(() => {
      const w = window as unknown as { frames_: number[]; stop_: boolean };
      w.stop_ = true;
      return Math.max(...w.frames_.slice(1));
    })) as number;
    frames.push(longest);
    await context.close();
  }
} finally {
  await browser?.close();
  await server.stop();
  if (!keepData) rmSync(dataDir, { recursive: true, force: true });
}

const rows = [...times.keys()].map((name) => {
  const ms = median(times.get(name)!);
  const target = name === 'overview' ? TARGETS.overviewMs : TARGETS.pageMs;
  return { name, ms, target, ok: ms <= target };
});
const jsGzipKb = jsBytes / 1024;
const frameMs = median(frames);
for (const r of rows)
  console.log(`${r.name}: complete ${r.ms.toFixed(0)} ms (target ${r.target})${r.ok ? '' : ' ✗'}`);
console.log(`JavaScript shipped: ${jsGzipKb.toFixed(1)} KB gzipped (target ${TARGETS.jsGzipKb})`);
console.log(`100-row table re-render: longest frame ${frameMs.toFixed(1)} ms (target ${TARGETS.frameMs})`);

const markdown = [
  `Measured ${new Date().toISOString()}: Chromium (headless) on \`npm start\`'s demo data, medians of ${runs} fresh tabs per view after one warm-up round. Command: \`${command}\`.`,
  '',
  '| measure | median | target |',
  '|---|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.name} complete (charts drawn) | ${r.ms.toFixed(0)} ms${r.ok ? '' : ' ✗'} | ${r.target} ms |`,
  ),
  `| JavaScript shipped (gzipped) | ${jsGzipKb.toFixed(1)} KB | ${TARGETS.jsGzipKb} KB |`,
  `| longest frame, 100-row table re-render | ${frameMs.toFixed(1)} ms | ${TARGETS.frameMs} ms |`,
  '',
].join('\n');
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/console.md', markdown);
writeFileSync(
  'bench/results/console.json',
  `${JSON.stringify({ command, runs, views: rows, jsGzipKb, frameMs, frames, times: Object.fromEntries(times) }, null, 2)}\n`,
);
console.log(markdown);
