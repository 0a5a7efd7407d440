// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { formatDuration } from '../../src/console/web/time.js';
import {
  type AnomalyMetric,
  formatBurn,
  formatMetric,
  formatShare,
  METRIC_TEXT,
  VERDICT_TEXT,
  type Verdict,
} from '../../src/console/web/verdicts.js';
import { ADMIN_TOKEN } from '../admin/admin-request.js';
import { requireEngine } from '../harness/engines.js';
import { createTenant, deployment, execution, ingest, workflow } from '../harness/fixtures.js';
import { ManualClock } from '../harness/manual-clock.js';
import { HOUR, iso, MINUTE } from '../insight/reference.js';
import { createObjective } from '../verdicts/objectives-request.js';
import {
  type ConsolePage,
  type ConsoleWorld,
  complete,
  openConsoleWorld,
  openPage,
  seriousViolations,
} from './console-session.js';

const SCREENSHOTS = process.env.WFAPI_SCREENSHOTS ?? 'test-results/screenshots';

/**
 * The instant the server and every page stand at: the last half past an hour that has gone by (up
 * to an hour ago), so that it is in the past and half an hour from either turn of the hour. Both clocks stand still (burn-rate
 * windows and buckets in progress end at it), so what the page showed and what the test asks a
 * moment later are the same answer, and both see the same hours.
 */
function fixedNow(): number {
  return Math.floor((Date.now() - 30 * MINUTE) / HOUR) * HOUR + 30 * MINUTE;
}

const needsChromium = await requireEngine('chromium');
describe(
  "the console's verdicts: deployment verdicts, expected ranges, what is unusual now and objectives",
  needsChromium,
  () => {
    let world: ConsoleWorld;
    let now: number;
    let settlement: string;
    const deployments: { first: string; breaking: string } = { first: '', breaking: '' };
    const objectives: string[] = [];

    before(async () => {
      now = fixedNow();
      const clock = new ManualClock(now);
      world = await openConsoleWorld(
        { workflows: 3, executions: 300, days: 2, seed: 'console-verdicts' },
        {
          // The rate limiter's tokens refill by the same standing clock: never, so no limit here.
          config: { adminToken: ADMIN_TOKEN, rateLimit: { burst: 1_000_000, perSecond: 1_000_000 } },
          options: { now: clock.read },
          now,
        },
      );
      const org = world.tenant.organizationId;
      const flow = workflow(org, { name: 'settlement' });
      settlement = flow.uuid as string;
      // Two deployments: the first with nothing before it, the second breaking the workflow (more
      // failures, with an error never seen before, and slower), then an incident in the last 3 hours.
      const first = deployment(org, settlement, { deployedAt: iso(now - 80 * HOUR) });
      const breaking = deployment(org, settlement, { deployedAt: iso(now - 30 * HOUR + 7 * MINUTE) });
      deployments.first = first.uuid as string;
      deployments.breaking = breaking.uuid as string;
      const runs: Array<Record<string, unknown>> = [];
      const incident = now - 3 * HOUR;
      for (let at = now - 80 * HOUR + MINUTE, i = 0; at < now - 2 * MINUTE; i++) {
        const afterBreak = at >= Date.parse(breaking.deployedAt as string);
        const inIncident = at >= incident;
        const fails = inIncident ? i % 5 < 3 : afterBreak ? i % 8 === 0 : i % 20 === 0;
        const error = inIncident
          ? 'incident 4711: upstream oracle refused the report'
          : afterBreak
            ? 'settlement 9001: nonce too low'
            : 'rpc timeout: node did not answer';
        const ms = inIncident ? 4000 : afterBreak ? 1500 : 1000;
        runs.push(
          execution(org, settlement, {
            status: fails ? 'FAILURE' : 'SUCCESS',
            startedAt: iso(at),
            finishedAt: iso(at + ms),
            ...(fails ? { errors: [{ error, count: 1 }] } : {}),
          }),
        );
        at += inIncident ? 75_000 : 150_000;
      }
      await ingest(world.database.db, [flow, first, breaking, ...runs]);
      for (const input of [
        { name: 'settlement availability', workflowUUID: settlement, indicator: 'SUCCESS', target: 0.99 },
        {
          name: 'settlement latency',
          workflowUUID: settlement,
          indicator: 'LATENCY',
          target: 0.95,
          thresholdMs: 2000,
          periodDays: 7,
        },
        { name: 'all workflows succeed', indicator: 'SUCCESS', target: 0.9 },
      ]) {
        objectives.push((await createObjective(world.server.url, { organizationId: org, ...input })).id);
      }
    });
    after(async () => {
      await world?.close();
    });

    async function signedIn(
      t: { after(fn: () => Promise<void>): void },
      path: string,
      key = world.tenant.key,
      viewport = { width: 1440, height: 900 },
    ) {
      const tab = await openPage(world);
      t.after(() => tab.context.close());
      await tab.page.setViewportSize(viewport);
      const url = new URL(path, world.server.url);
      url.hash = `key=${encodeURIComponent(key)}`;
      await tab.page.goto(url.toString());
      return tab;
    }

    const noProblems = (tab: ConsolePage) => assert.deepEqual(tab.problems, []);

    /** No serious axe violation, no sideways scroll, and a screenshot to look at. */
    async function checked(tab: ConsolePage, name: string) {
      const { page } = tab;
      assert.deepEqual(await seriousViolations(page), [], name);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${name} scrolls ${overflow}px sideways`);
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/verdicts-${name}.png`, fullPage: true });
      for (const section of ['unusual', 'objectives', 'deployments']) {
        const panel = page.locator(`[data-section="${section}"]`);
        if (await panel.count())
          await panel.screenshot({ path: `${SCREENSHOTS}/verdicts-${name}-${section}.png` });
      }
    }

    it("badges each deployment of a workflow with its verdict in words, says what changed in its row, and marks it on the workflow's charts, red when it regressed", async (t) => {
      const tab = await signedIn(t, `/?view=workflow&uuid=${settlement}&window=7d`);
      const { page } = tab;
      await complete(page, 'workflow');
      const { deploymentImpact } = await world.api(
        `query($uuid: String!) { deploymentImpact(input: {workflowUUID: $uuid, page: {size: 20}}) { data {
        deployment { uuid deployedAt } verdict
        before { failureRate executions } after { failureRate executions }
        newErrorGroups { fingerprint pattern }
      } } }`,
        { uuid: settlement },
      );
      const impacts = deploymentImpact.data as Array<{
        deployment: { uuid: string; deployedAt: string };
        verdict: Verdict;
        before: { failureRate: number | null };
        after: { failureRate: number | null };
        newErrorGroups: Array<{ pattern: string }>;
      }>;
      assert.deepEqual(
        impacts.map((i) => [i.deployment.uuid, i.verdict]),
        [
          [deployments.breaking, 'REGRESSED'],
          [deployments.first, 'INSUFFICIENT_DATA'],
        ],
        'the planted deployments are judged as planted',
      );
      assert.deepEqual(
        impacts[0]!.newErrorGroups.map((g) => g.pattern).sort(),
        ['incident <num>: upstream oracle refused the report', 'settlement <num>: nonce too low'],
        'the errors first seen after the breaking deployment',
      );
      for (const impact of impacts) {
        const row = page.locator(`li[data-deployment="${impact.deployment.uuid}"]`);
        const badge = row.locator('[data-verdict]');
        assert.equal(await badge.getAttribute('data-verdict'), impact.verdict);
        assert.equal(await badge.innerText(), VERDICT_TEXT[impact.verdict]);
        assert.equal(
          await row.locator('[data-cell="rate-before"]').innerText(),
          formatShare(impact.before.failureRate),
        );
        assert.equal(
          await row.locator('[data-cell="rate-after"]').innerText(),
          formatShare(impact.after.failureRate),
        );
        assert.equal(
          await row.locator('[data-cell="new-groups"]').innerText(),
          String(impact.newErrorGroups.length),
        );
      }
      assert.match(
        await page.locator(`li[data-deployment="${deployments.breaking}"] [data-impact]`).innerText(),
        /2 new error groups: .*nonce too low/,
      );
      // Both deployments are inside the week: a marker each on each chart, the breaking one red.
      const activity = page.locator('[data-section="activity"] .chart-canvas').first();
      const markers = activity.locator('g[data-marker]');
      assert.equal(await markers.count(), 2);
      const regressed = activity.locator('g[data-marker*="Regressed"] line');
      assert.equal(await regressed.count(), 1);
      assert.equal(await regressed.getAttribute('stroke'), '#cf222e');
      const judged = activity.locator('g[data-marker*="Too few runs to judge"] line');
      assert.notEqual(await judged.getAttribute('stroke'), '#cf222e');
      await checked(tab, 'workflow-week');
      noProblems(tab);
    });

    it("draws each metric's expected range behind the workflow's activity, failure rate and p95 duration, marks the buckets outside it and names them in the readout and the figures", async (t) => {
      const tab = await signedIn(t, `/?view=workflow&uuid=${settlement}&window=24h`);
      const { page } = tab;
      await complete(page, 'workflow');
      const view = page.locator('[data-view="workflow"]');
      const from = await view.getAttribute('data-from');
      const to = await view.getAttribute('data-to');
      const { anomalies } = await world.api(
        `query($uuid: String!, $from: Time!, $to: Time!) { anomalies(input: {workflowUUID: $uuid, from: $from, to: $to}) {
        series { metric points { from observed lower upper anomalous } }
      } }`,
        { uuid: settlement, from, to },
      );
      type Point = {
        observed: number | null;
        lower: number | null;
        upper: number | null;
        anomalous: boolean;
      };
      const series = new Map<AnomalyMetric, Point[]>(
        (anomalies.series as Array<{ metric: AnomalyMetric; points: Point[] }>).map((s) => [
          s.metric,
          s.points,
        ]),
      );
      const charts = page.locator('[data-section="activity"] figure.chart');
      // Activity, failures on their own scale (no band: failures are no metric of their own), rate, p95.
      assert.equal(await charts.count(), 4);
      const chartOf: Array<[AnomalyMetric, number]> = [
        ['EXECUTIONS', 0],
        ['FAILURE_RATE', 2],
        ['DURATION_P95', 3],
      ];
      for (const [metric, index] of chartOf) {
        const chart = charts.nth(index);
        const points = series.get(metric)!;
        const side = (p: Point) =>
          !p.anomalous || p.observed === null
            ? null
            : p.upper !== null && p.observed > p.upper
              ? 'above'
              : 'below';
        assert.equal(await chart.locator('path[data-band]').count(), 1, metric);
        assert.deepEqual(
          await chart
            .locator('[data-anomalous]')
            .evaluateAll((marks) => marks.map((m) => m.getAttribute('data-anomalous'))),
          points.map(side).filter(Boolean),
          `${metric}: a mark per bucket outside its range`,
        );
        const format = (v: number) =>
          metric === 'FAILURE_RATE'
            ? formatShare(v)
            : metric === 'DURATION_P95'
              ? formatDuration(v)
              : formatMetric(metric, v);
        assert.deepEqual(
          (await chart.locator('td[data-series="expected"]').allTextContents()).map((s) => s.trim()),
          points.map((p) =>
            p.lower === null || p.upper === null
              ? `–${side(p) ? ` (unusual: ${side(p)})` : ''}`
              : `${format(p.lower)} – ${format(p.upper)}${side(p) ? ` (unusual: ${side(p)})` : ''}`,
          ),
          `${metric}: the figures name each bucket's expected range`,
        );
        if (metric !== 'EXECUTIONS') {
          assert.deepEqual(
            await chart.locator('td[data-series]:not([data-series="expected"])').allTextContents(),
            points.map((p) => (p.observed === null ? '–' : format(p.observed))),
            `${metric}: the observed values`,
          );
        }
      }
      // The incident's hours are outside the failure rate's range, and the readout says so.
      const rates = series.get('FAILURE_RATE')!;
      const unusual = rates.findIndex((p) => p.anomalous);
      assert.ok(unusual >= 0, 'the incident raises the failure rate out of its range');
      const rateCanvas = charts.nth(2).locator('.chart-canvas');
      await rateCanvas.focus();
      await page.keyboard.press('Home');
      for (let i = 0; i < unusual; i++) await page.keyboard.press('ArrowRight');
      const readout = await charts.nth(2).locator('[data-readout]').innerText();
      assert.match(readout, /failure rate \d+\.\d %/);
      assert.match(readout, /expected \d+\.\d % – \d+\.\d %/);
      assert.match(readout, /unusual: above the expected range/);
      await checked(tab, 'workflow-day');
      noProblems(tab);
    });

    it("lists what is unusual now and the organization's objectives on the overview as the API answers them, and a workflow's own objectives in its view", async (t) => {
      const tab = await signedIn(t, '/');
      const { page } = tab;
      await complete(page, 'overview');
      const holder = page.locator('[data-unusual-from]');
      const from = await holder.getAttribute('data-unusual-from');
      const to = (await holder.getAttribute('data-unusual-to'))!;
      const { anomalies, serviceLevels } = await world.api(
        `query($from: Time!, $to: Time!) {
          anomalies(input: {from: $from, to: $to}) { data { metric workflowUUID workflowName from to observed expected direction } }
          serviceLevels(input: {}) { data {
            id name workflowName attainment errorBudgetRemaining burnRates { window rate } status
          } }
        }`,
        { from, to },
      );
      type Entry = {
        metric: AnomalyMetric;
        workflowUUID: string | null;
        workflowName: string | null;
        from: string;
        to: string;
        observed: number;
        expected: number;
        direction: string;
      };
      const keyOf = (e: Entry) => `${e.workflowUUID ?? 'organization'}/${e.metric}`;
      // The latest anomaly of each scope and metric is current when its bucket ended at most an hour ago.
      const latest = new Map<string, Entry>();
      for (const entry of anomalies.data as Entry[])
        if (!latest.has(keyOf(entry))) latest.set(keyOf(entry), entry);
      const current = [...latest.values()].filter((e) => Date.parse(e.to) >= Date.parse(to) - HOUR);
      assert.ok(
        current.some(
          (e) => e.workflowUUID === settlement && e.metric === 'FAILURE_RATE' && e.direction === 'UP',
        ),
        "the incident's failure rate is unusual now",
      );
      const rows = page.locator('[data-section="unusual"] tr[data-anomaly]');
      assert.deepEqual(
        (await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-anomaly')))).sort(),
        current.map(keyOf).sort(),
      );
      const anomalous = new Set((anomalies.data as Entry[]).map((e) => `${keyOf(e)}@${Date.parse(e.from)}`));
      for (const entry of current) {
        const row = page.locator(`tr[data-anomaly="${keyOf(entry)}"]`);
        assert.equal(
          await row.locator('[data-cell="workflow"]').innerText(),
          entry.workflowName ?? 'The organization as a whole',
        );
        assert.ok(
          (await row.locator('[data-cell="metric"]').innerText()).startsWith(METRIC_TEXT[entry.metric]),
        );
        assert.equal(
          await row.locator('[data-cell="observed"]').innerText(),
          formatMetric(entry.metric, entry.observed),
        );
        assert.ok(
          (await row.locator('[data-cell="expected"]').innerText()).startsWith(
            formatMetric(entry.metric, entry.expected),
          ),
        );
        // Since: an anomalous bucket of the same scope and metric, as is every hour from it to the latest.
        const since = Date.parse((await row.locator('[data-cell="since"]').getAttribute('data-since'))!);
        for (let at = since; at <= Date.parse(entry.from); at += HOUR)
          assert.ok(anomalous.has(`${keyOf(entry)}@${at}`), `${keyOf(entry)} at ${iso(at)}`);
        assert.ok(!anomalous.has(`${keyOf(entry)}@${since - HOUR}`), `${keyOf(entry)}: the run starts there`);
      }
      // Objectives: by name, each with its figures, burn rates and status in words.
      const levels = serviceLevels.data as Array<{
        id: string;
        name: string;
        workflowName: string | null;
        attainment: number | null;
        errorBudgetRemaining: number | null;
        burnRates: Array<{ window: string; rate: number | null }>;
        status: string;
      }>;
      assert.deepEqual(
        levels.map((l) => l.name),
        ['all workflows succeed', 'settlement availability', 'settlement latency'],
      );
      assert.equal(levels[1]!.status, 'PAGE', 'the incident burns the availability budget fast');
      assert.deepEqual(
        await page
          .locator('[data-section="objectives"] tr[data-objective]')
          .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-objective'))),
        levels.map((l) => l.id),
      );
      for (const level of levels) {
        const row = page.locator(`tr[data-objective="${level.id}"]`);
        assert.ok((await row.locator('[data-cell="name"]').innerText()).startsWith(level.name));
        assert.equal(
          await row.locator('[data-cell="workflow"]').innerText(),
          level.workflowName ?? 'all workflows',
        );
        assert.ok(
          (await row.locator('[data-cell="attainment"]').innerText()).startsWith(
            formatShare(level.attainment, 2),
          ),
        );
        assert.equal(
          await row.locator('[data-cell="budget"]').innerText(),
          formatShare(level.errorBudgetRemaining),
        );
        assert.deepEqual(
          await row
            .locator('[data-cell="burns"] li')
            .evaluateAll((lis) =>
              lis.map((li) => [li.getAttribute('data-window'), li.querySelector('[data-rate]')?.textContent]),
            ),
          level.burnRates.map((b) => [b.window, formatBurn(b.rate)]),
        );
        assert.equal(await row.locator('[data-cell="status"]').innerText(), level.status);
      }
      await checked(tab, 'overview');
      await page.setViewportSize({ width: 390, height: 844 });
      await checked(tab, 'overview-phone');
      // The workflow's link leads to its day, with its own objectives only.
      await page.locator(`tr[data-anomaly="${settlement}/FAILURE_RATE"] [data-cell="workflow"] a`).click();
      await complete(page, 'workflow');
      assert.equal(new URL(page.url()).searchParams.get('window'), '24h');
      assert.deepEqual(
        await page
          .locator('[data-section="objectives"] tr[data-objective]')
          .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-objective'))),
        levels.filter((l) => l.workflowName === 'settlement').map((l) => l.id),
      );
      assert.equal(await page.locator('[data-section="objectives"] [data-cell="workflow"]').count(), 0);
      await checked(tab, 'workflow-phone');
      noProblems(tab);
    });

    it('says so, in a designed empty state, when nothing is unusual and there are no objectives', async (t) => {
      const quiet = await createTenant(world.database.db, 'Quiet Org');
      for (const viewport of [
        { width: 1440, height: 900 },
        { width: 390, height: 844 },
      ]) {
        const tab = await signedIn(t, '/', quiet.key, viewport);
        const { page } = tab;
        await complete(page, 'overview');
        const holder = page.locator('[data-unusual-from]');
        const answer = await world.server.gql(
          quiet.key,
          'query($from: Time!, $to: Time!) { anomalies(input: {from: $from, to: $to}) { data { metric } } serviceLevels(input: {}) { data { id } } }',
          {
            from: await holder.getAttribute('data-unusual-from'),
            to: await holder.getAttribute('data-unusual-to'),
          },
        );
        assert.deepEqual(answer.body.data, { anomalies: { data: [] }, serviceLevels: { data: [] } });
        assert.match(
          await page.locator('[data-section="unusual"] [data-empty]').innerText(),
          /^Nothing unusual now\./,
        );
        assert.match(
          await page.locator('[data-section="objectives"] [data-empty]').innerText(),
          /^No objectives yet\./,
        );
        assert.equal(await page.locator('tr[data-anomaly], tr[data-objective]').count(), 0);
        await checked(tab, `overview-empty-${viewport.width}`);
        noProblems(tab);
      }
    });
  },
);
