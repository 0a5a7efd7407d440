// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { HistoryLoad } from '../../src/app.js';
import { formatCount, formatRate } from '../../src/console/web/time.js';
import { requireEngine } from '../harness/engines.js';
import { startServer } from '../harness/server.js';
import {
  type ConsolePage,
  type ConsoleWorld,
  complete,
  openConsoleWorld,
  openSignedIn,
  seriousViolations,
  texts,
} from './console-session.js';

const SCREENSHOTS = process.env.WFAPI_SCREENSHOTS ?? 'test-results/screenshots';
const DAY = 86_400_000;

/** The API's instant as the console writes it in UTC: its own digits, `T` a space, `Z` "UTC". */
const utcText = (iso: string) => iso.replace('T', ' ').replace(/Z$/, ' UTC');

type Figures = { runs: number; success: number; failure: number };
type Listed = { uuid: string; name: string; creditUsed: string | null };

const needsChromium = await requireEngine('chromium');
describe(
  'the web console for triage: workflows sorted by their figures, page sizes, times in UTC, credits and the loading notice',
  needsChromium,
  () => {
    let world: ConsoleWorld;
    /** A fixed range covering the whole simulated history, so that every load asks the same figures. */
    let from: string;
    let to: string;
    let listed: Listed[];
    const figures = new Map<string, Figures>();
    before(async () => {
      world = await openConsoleWorld({ workflows: 24, executions: 2400, days: 3 });
      to = new Date().toISOString();
      from = new Date(Date.parse(to) - 4 * DAY).toISOString();
      listed = (
        await world.api('{ workflows(input: {page: {size: 100}}) { data { uuid name creditUsed } } }')
      ).workflows.data;
      for (const { uuid } of listed) {
        const answer = await world.api(
          `query($w: String!, $from: Time!, $to: Time!) {
          r: workflowExecutions(input: {workflowUuid: $w, from: $from, to: $to}) { count }
          s: workflowExecutions(input: {workflowUuid: $w, from: $from, to: $to, status: [SUCCESS]}) { count }
          f: workflowExecutions(input: {workflowUuid: $w, from: $from, to: $to, status: [FAILURE]}) { count }
        }`,
          { w: uuid, from, to },
        );
        figures.set(uuid, { runs: answer.r.count, success: answer.s.count, failure: answer.f.count });
      }
    });
    after(async () => {
      await world?.close();
    });

    async function signedIn(t: { after(fn: () => Promise<void>): void }, path: string) {
      const tab = await openSignedIn(world, path);
      t.after(() => tab.context.close());
      return tab;
    }
    const noProblems = (tab: ConsolePage) => assert.deepEqual(tab.problems, []);
    const range = () => `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    const rate = (f: Figures) => (f.success + f.failure === 0 ? null : f.failure / (f.success + f.failure));

    /**
     * The order the API's figures imply: by the figure (a workflow with nothing finished has no rate
     * and comes last), ties by name then uuid.
     */
    function implied(field: 'RUNS' | 'FAILURE_RATE', order: 'ASC' | 'DESC'): string[] {
      const value = (w: Listed) => {
        const f = figures.get(w.uuid)!;
        return field === 'RUNS' ? f.runs : rate(f);
      };
      return [...listed]
        .sort((a, b) => {
          const [x, y] = [value(a), value(b)];
          if (x !== y) {
            if (x === null || y === null) return x === null ? 1 : -1;
            return order === 'ASC' ? x - y : y - x;
          }
          if (a.name !== b.name) return a.name < b.name ? -1 : 1;
          return a.uuid < b.uuid ? -1 : 1;
        })
        .map((w) => w.uuid);
    }
    const shownOrder = (tab: ConsolePage) =>
      tab.page.$$eval('tr[data-workflow]', (rows) => rows.map((row) => row.getAttribute('data-workflow')!));

    it("sorts by runs and by failure rate across every workflow in the order the API's figures imply, says the sort in the header and keeps it in the address", async (t) => {
      const tab = await signedIn(t, `/?view=workflows&${range()}&size=50`);
      const { page } = tab;
      await complete(page, 'workflows');
      assert.equal(await page.locator('[data-view="workflows"]').getAttribute('data-from'), from);
      assert.equal(await page.locator('th[aria-sort]').count(), 0, 'the default order is the API’s, unnamed');

      for (const [field, label] of [
        ['RUNS', 'runs'],
        ['FAILURE_RATE', 'failure rate'],
      ] as const) {
        for (const order of ['DESC', 'ASC'] as const) {
          await page.click(`th[data-sort="${field}"] a`);
          const sort = order === 'DESC' ? 'descending' : 'ascending';
          await page.waitForSelector(`th[data-sort="${field}"][aria-sort="${sort}"]`);
          await complete(page, 'workflows');
          const address = new URL(page.url()).searchParams;
          assert.equal(address.get('sort'), field);
          assert.equal(address.get('order'), order);
          assert.equal(await page.locator('th[aria-sort]').count(), 1, 'only the sorted column says so');
          assert.match(await page.locator(`th[data-sort="${field}"]`).innerText(), new RegExp(label));
          assert.deepEqual(await shownOrder(tab), implied(field, order), `${field} ${order}`);
        }
      }
      // Each row's figures are the API's for the range; rates of 5 % and above say "high" in words.
      const rows = await page.$$eval('tr[data-workflow]', (trs) =>
        trs.map((tr) => ({
          uuid: tr.getAttribute('data-workflow')!,
          runs: tr.querySelector('[data-cell="runs"]')!.textContent!.trim(),
          rate: tr.querySelector('[data-rate]')!.textContent!.trim(),
          flagged: (tr.querySelector('[data-cell="failure-rate"]')!.textContent ?? '').includes('high'),
        })),
      );
      let high = 0;
      for (const row of rows) {
        const f = figures.get(row.uuid)!;
        assert.equal(row.runs, formatCount(f.runs));
        assert.equal(row.rate, formatRate(f.failure, f.success + f.failure));
        const isHigh = (rate(f) ?? 0) >= 0.05;
        assert.equal(row.flagged, isHigh, `${row.uuid} at ${row.rate}`);
        if (isHigh) high++;
      }
      t.diagnostic(`${high} of ${rows.length} workflows at 5 % or more`);
      assert.ok(high > 0 && high < rows.length, 'the simulated history has high and low failure rates');

      // The address alone restores the sort, and its pages are pages of the whole sorted list.
      await page.goto(
        new URL(
          `/?view=workflows&${range()}&sort=RUNS&order=DESC&size=20&page=1`,
          world.server.url,
        ).toString(),
      );
      await complete(page, 'workflows');
      assert.deepEqual(await shownOrder(tab), implied('RUNS', 'DESC').slice(20, 40));
      assert.match(await page.locator('[data-pager]').innerText(), /page 2 of 2 · 24 workflows/);
      noProblems(tab);
    });

    it('links each mark of the run strip to its execution, the newest last', async (t) => {
      const tab = await signedIn(t, `/?view=workflows&${range()}`);
      const { page } = tab;
      await complete(page, 'workflows');
      const row = page.locator('tr[data-workflow]').first();
      const uuid = (await row.getAttribute('data-workflow'))!;
      const { workflowExecutions } = await world.api(
        'query($w: String) { workflowExecutions(input: {workflowUuid: $w, page: {size: 20}}) { data { uuid status } } }',
        { w: uuid },
      );
      const latest = workflowExecutions.data as Array<{ uuid: string; status: string }>;
      const marks = row.locator('a[data-run]');
      assert.deepEqual(
        await marks.evaluateAll((links) => links.map((a) => a.getAttribute('data-run'))),
        latest.map((e) => e.uuid).reverse(),
      );
      const newest = marks.last();
      assert.match(
        (await newest.getAttribute('aria-label'))!,
        new RegExp(`^${latest[0]!.status} run started `),
      );
      await newest.click();
      await page.waitForURL((url) => url.searchParams.get('view') === 'execution');
      assert.equal(new URL(page.url()).searchParams.get('uuid'), latest[0]!.uuid);
      assert.equal(new URL(page.url()).searchParams.get('from'), from, 'the range goes along');
      await complete(page, 'execution');
      noProblems(tab);
    });

    it('changes the rows a page holds with the page-size control, kept in the address through a reload', async (t) => {
      const tab = await signedIn(t, '/?view=workflows');
      const { page } = tab;
      await complete(page, 'workflows');
      const names = () => texts(page, 'tr[data-workflow] td:first-child');
      const apiNames = async (size: number) =>
        (
          await world.api('query($size: Int) { workflows(input: {page: {size: $size}}) { data { name } } }', {
            size,
          })
        ).workflows.data.map((w: { name: string }) => w.name);
      assert.deepEqual(await names(), await apiNames(20));
      assert.equal(await page.locator('select[name="size"]').inputValue(), '20');

      await page.selectOption('select[name="size"]', '50');
      await page.waitForURL((url) => url.searchParams.get('size') === '50');
      await complete(page, 'workflows');
      assert.deepEqual(await names(), await apiNames(50));
      assert.equal((await names()).length, 24);
      assert.match(await page.locator('[data-pager]').innerText(), /page 1 of 1 · 24 workflows/);

      await page.reload();
      await complete(page, 'workflows');
      assert.equal(await page.locator('select[name="size"]').inputValue(), '50');
      assert.equal((await names()).length, 24);

      await page.selectOption('select[name="size"]', '20');
      await page.waitForURL((url) => !url.searchParams.has('size'));
      await complete(page, 'workflows');
      assert.equal((await names()).length, 20);
      noProblems(tab);
    });

    it("switches every absolute time between the viewer's zone and UTC with the header's toggle, remembered across a reload, the UTC text the API's own instant", async (t) => {
      const { workflowExecutions } = await world.api(
        '{ workflowExecutions(input: {status: [SUCCESS], page: {size: 1}}) { data { uuid startedAt } } }',
      );
      const { uuid, startedAt } = workflowExecutions.data[0] as { uuid: string; startedAt: string };
      const tab = await signedIn(t, `/?view=execution&uuid=${uuid}`);
      const { page } = tab;
      await complete(page, 'execution');
      const started = page.locator(`[data-view="execution"] time[datetime="${startedAt}"]`).first();
      const toggle = page.locator('button[data-toggle="utc"]');
      const local = await started.innerText();
      assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
      assert.ok(!local.includes('UTC'), local);
      assert.notEqual(local, utcText(startedAt));
      assert.equal(await started.getAttribute('title'), utcText(startedAt), 'UTC on hover');

      await toggle.click();
      assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
      assert.equal(await started.innerText(), utcText(startedAt));
      assert.notEqual(await started.getAttribute('title'), utcText(startedAt), 'the local time on hover');

      // Another view, after a reload: still UTC, the window's instants as the API's.
      await page.goto(new URL(`/?view=overview&${range()}`, world.server.url).toString());
      await complete(page, 'overview');
      assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
      assert.equal(
        await page.locator(`[data-view="overview"] time[datetime="${from}"]`).first().innerText(),
        utcText(from),
      );

      await page.goto(new URL(`/?view=execution&uuid=${uuid}`, world.server.url).toString());
      await complete(page, 'execution');
      await toggle.click();
      assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
      assert.equal(await started.innerText(), local);

      // Lists say how long ago, the absolute time on hover.
      await page.goto(new URL('/?view=workflows', world.server.url).toString());
      await complete(page, 'workflows');
      const ago = page.locator('tr[data-workflow] time[data-ago]').first();
      assert.match(await ago.innerText(), /^\d+ (s|min|h|d) ago$/);
      assert.ok((await ago.getAttribute('title'))!.length > 10);
      noProblems(tab);
    });

    it('shows every credit amount with its unit, the figure the API answers', async (t) => {
      const tab = await signedIn(t, '/?view=workflows&size=50');
      const { page } = tab;
      await complete(page, 'workflows');
      const credits = (amount: string | null) =>
        amount === null ? '–' : `${amount} ${Number(amount) === 1 ? 'credit' : 'credits'}`;
      const shown = await page.$$eval('tr[data-workflow]', (rows) =>
        rows.map((tr) => [
          tr.getAttribute('data-workflow')!,
          tr.querySelector('[data-cell="credits"]')!.textContent!.trim(),
        ]),
      );
      const byUuid = new Map(listed.map((w) => [w.uuid, w.creditUsed]));
      assert.ok(
        shown.some(([, text]) => text !== '–'),
        'some workflows used credits',
      );
      for (const [uuid, text] of shown) {
        assert.ok(byUuid.has(uuid!), `${uuid} is listed by the API`);
        assert.equal(text, credits(byUuid.get(uuid!) ?? null));
      }

      const { workflowExecutions } = await world.api(
        '{ workflowExecutions(input: {page: {size: 10}}) { data { uuid workflowUUID creditUsed } } }',
      );
      const run = (
        workflowExecutions.data as Array<{ uuid: string; workflowUUID: string; creditUsed: string | null }>
      ).find((e) => e.creditUsed !== null)!;
      await page.goto(new URL(`/?view=execution&uuid=${run.uuid}`, world.server.url).toString());
      await complete(page, 'execution');
      assert.equal(await page.locator('[data-figure="credits"]').innerText(), credits(run.creditUsed));

      await page.goto(
        new URL(`/?view=workflow&uuid=${run.workflowUUID}&window=7d`, world.server.url).toString(),
      );
      await complete(page, 'workflow');
      const cells = await texts(page, 'td[data-cell="credits"]');
      assert.ok(cells.length > 0);
      for (const cell of cells) assert.match(cell, /^(\d+(\.\d+)? credits?|–)$/);
      assert.match(await page.locator('[data-figure="credits"]').innerText(), /^(\d+(\.\d+)? credits?|–)$/);
      noProblems(tab);
    });

    it("says the demo's history is still loading while the server says so, and hides it once loaded", async (t) => {
      let history: HistoryLoad = { loading: true, completeFrom: from };
      const server = await startServer(world.database.db, {}, { history: () => history });
      t.after(() => server.close());
      const ready = await (await fetch(`${server.url}/readyz`)).json();
      assert.deepEqual(ready, { status: 'ready', history: { loading: true, completeFrom: from } });
      assert.equal(
        (await (await fetch(`${world.server.url}/readyz`)).json()).history,
        undefined,
        'only when loading',
      );

      const tab = await openSignedIn({ ...world, server }, '/');
      t.after(() => tab.context.close());
      const { page } = tab;
      await page.clock.install();
      await page.reload();
      await complete(page, 'overview');
      const notice = page.locator('[data-notice="history-loading"]');
      await notice.waitFor();
      assert.match(await notice.innerText(), /still loading/);
      assert.equal(
        await notice.locator(`time[datetime="${from}"]`).count(),
        1,
        'complete from the instant the server says',
      );
      assert.equal(await notice.getAttribute('role'), 'status');

      history = { loading: false, completeFrom: from };
      await page.clock.runFor(15_000);
      await notice.waitFor({ state: 'detached' });
      noProblems(tab);
    });

    it('passes axe-core without serious or critical violations on the triage views at 1440x900 and 390x844, with no horizontal scroll, and saves screenshots', async (t) => {
      mkdirSync(SCREENSHOTS, { recursive: true });
      const server = await startServer(
        world.database.db,
        {},
        { history: () => ({ loading: true, completeFrom: from }) },
      );
      t.after(() => server.close());
      const tab = await openSignedIn(
        { ...world, server },
        `/?view=workflows&${range()}&sort=FAILURE_RATE&order=DESC`,
      );
      t.after(() => tab.context.close());
      const { page } = tab;
      for (const [suffix, viewport] of [
        ['', { width: 1440, height: 900 }],
        ['-phone', { width: 390, height: 844 }],
      ] as const) {
        await page.setViewportSize(viewport);
        for (const utc of [false, true]) {
          await page.goto(
            new URL(`/?view=workflows&${range()}&sort=FAILURE_RATE&order=DESC`, server.url).toString(),
          );
          await complete(page, 'workflows');
          await page.waitForSelector('[data-notice="history-loading"]');
          const toggle = page.locator('button[data-toggle="utc"]');
          if ((await toggle.getAttribute('aria-pressed')) !== String(utc)) await toggle.click();
          const name = `triage-workflows${utc ? '-utc' : ''}${suffix}`;
          assert.deepEqual(await seriousViolations(page), [], name);
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          assert.ok(overflow <= 0, `${name} scrolls ${overflow}px sideways`);
          await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: suffix === '' });
        }
      }
      noProblems(tab);
    });
  },
);
