// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { formatCount, formatDuration, formatRate } from '../../src/console/web/time.js';
import { requireEngine } from '../harness/engines.js';
import { execution, ingest } from '../harness/fixtures.js';
import { caughtUp } from './caught-up.js';
import {
  type ConsolePage,
  type ConsoleWorld,
  complete,
  openConsoleWorld,
  openPage,
  seriousViolations,
  texts,
} from './console-session.js';

/**
 * Where the browser test saves its screenshots: `test-results/screenshots` (ignored by git), or
 * `WFAPI_SCREENSHOTS=docs/screenshots` to refresh the ones the README shows.
 */
const SCREENSHOTS = process.env.WFAPI_SCREENSHOTS ?? 'test-results/screenshots';

/** Debian's Chromium (CI installs it with `apt-get install -y chromium`); Playwright never downloads one. */
const needsChromium = await requireEngine('chromium');
describe('the web console in a real browser', needsChromium, () => {
  let world: ConsoleWorld;
  before(async () => {
    world = await openConsoleWorld();
  });
  after(async () => {
    await world?.close();
  });

  /** Opens a fresh tab signed in through the link's fragment, as the demo banner prints it. */
  async function signedIn(
    t: { after(fn: () => Promise<void>): void },
    path = '/',
    scheme: 'light' | 'dark' = 'light',
  ) {
    const tab = await openPage(world, { colorScheme: scheme });
    t.after(() => tab.context.close());
    const url = new URL(path, world.server.url);
    url.hash = `key=${encodeURIComponent(world.tenant.key)}`;
    await tab.page.goto(url.toString());
    return tab;
  }

  const noProblems = (tab: ConsolePage) => assert.deepEqual(tab.problems, []);

  it('signs in from the link fragment without sending the key anywhere but the Authorization header, and shows the overview as the API answers it', async (t) => {
    const tab = await signedIn(t);
    const { page } = tab;
    await complete(page, 'overview');
    assert.equal(new URL(page.url()).hash, '', 'the key is taken out of the address bar');
    assert.ok(tab.posts.length > 0);
    for (const post of tab.posts) {
      assert.equal(post.authorization, `Apikey ${world.tenant.key}`);
      assert.ok(!post.body.includes(world.tenant.key), 'the key is never in a request body');
    }
    const view = page.locator('[data-view="overview"]');
    const from = (await view.getAttribute('data-from'))!;
    const to = (await view.getAttribute('data-to'))!;
    const { workflowActivity, durationStats, errorGroups, all, succeeded, failed } = await world.api(
      `query($from: Time, $to: Time) {
        all: workflowExecutions(input: {from: $from, to: $to}) { count }
        succeeded: workflowExecutions(input: {from: $from, to: $to, status: [SUCCESS]}) { count }
        failed: workflowExecutions(input: {from: $from, to: $to, status: [FAILURE]}) { count }
        workflowActivity(input: {from: $from, to: $to}) { data { from successCount failureCount } }
        durationStats(input: {from: $from, to: $to}) { data { p50Ms p95Ms } }
        errorGroups(input: {from: $from, to: $to, page: {size: 100}}) { data { fingerprint occurrences } }
      }`,
      { from, to },
    );
    const buckets = workflowActivity.data as Array<{
      from: string;
      successCount: number;
      failureCount: number;
    }>;
    assert.ok(succeeded.count > 0 && failed.count > 0, 'the simulated day has both outcomes');
    assert.ok(Date.parse(buckets[0]!.from) < Date.parse(from), 'the first bucket starts before the window');
    // The figures are the API's counts for exactly the stated window, not the buckets' sums.
    const figure = (name: string) => page.locator(`[data-figure="${name}"]`).innerText();
    assert.equal(await figure('executions'), formatCount(all.count));
    assert.equal(await figure('success'), formatCount(succeeded.count));
    assert.equal(await figure('failure'), formatCount(failed.count));
    assert.equal(await figure('failure-rate'), formatRate(failed.count, succeeded.count + failed.count));
    assert.equal(await figure('p50'), formatDuration(durationStats.data.p50Ms));
    assert.equal(await figure('p95'), formatDuration(durationStats.data.p95Ms));
    // The chart's figures, bucket by bucket.
    const outcomes = page.locator('[data-section="outcomes"]');
    assert.deepEqual(
      await outcomes.locator('table').first().locator('td[data-series="failure"]').allTextContents(),
      buckets.map((b) => formatCount(b.failureCount)),
    );
    // Failing workflows: each row's failures and runs are the workflow's own over the window.
    const rows = page.locator('[data-section="failing"] tr[data-workflow]');
    assert.ok((await rows.count()) > 0);
    let previous = Number.POSITIVE_INFINITY;
    for (const row of await rows.all()) {
      const uuid = (await row.getAttribute('data-workflow'))!;
      const answer = await world.api(
        `query($uuid: String, $from: Time, $to: Time) {
          runs: workflowExecutions(input: {workflowUuid: $uuid, from: $from, to: $to}) { count }
          failures: workflowExecutions(input: {workflowUuid: $uuid, from: $from, to: $to, status: [FAILURE]}) { count }
        }`,
        { uuid, from, to },
      );
      assert.equal(
        await row.locator('[data-cell="failure"]').innerText(),
        formatCount(answer.failures.count),
      );
      assert.equal(await row.locator('[data-cell="runs"]').innerText(), formatCount(answer.runs.count));
      assert.ok(answer.failures.count <= previous, 'the workflows failing most come first');
      previous = answer.failures.count;
    }
    const occurrences = new Map(
      (errorGroups.data as Array<{ fingerprint: string; occurrences: number }>).map((g) => [
        g.fingerprint,
        g.occurrences,
      ]),
    );
    for (const row of await page.locator('[data-section="rising"] tr[data-fingerprint]').all()) {
      const fingerprint = (await row.getAttribute('data-fingerprint'))!;
      assert.equal(
        await row.locator('[data-cell="occurrences"]').innerText(),
        formatCount(occurrences.get(fingerprint)),
      );
    }
    // Times show in the viewer's zone, with UTC on hover.
    const freshness = page.locator('[data-freshness] time');
    assert.match((await freshness.getAttribute('title'))!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? UTC$/);
    noProblems(tab);
  });

  it('keeps the window from view to view, back from an execution too, and serves back and forward from what was just loaded', async (t) => {
    const tab = await signedIn(t, '/?window=7d');
    const { page } = tab;
    await complete(page, 'overview');
    await page.locator('[data-section="failing"] tr[data-workflow] td:first-child a').first().click();
    await page.waitForURL((url) => url.searchParams.get('view') === 'workflow');
    assert.equal(new URL(page.url()).searchParams.get('window'), '7d');
    await complete(page, 'workflow');
    const uuid = new URL(page.url()).searchParams.get('uuid')!;
    const executions = page.locator('[data-executions-from]');
    const from = (await executions.getAttribute('data-executions-from'))!;
    const to = (await executions.getAttribute('data-executions-to'))!;
    assert.ok(Date.parse(to) - Date.parse(from) === 7 * 86_400_000, 'the table is over the 7 d window');
    const { workflowExecutions } = await world.api(
      'query($uuid: String, $from: Time, $to: Time) { workflowExecutions(input: {workflowUuid: $uuid, from: $from, to: $to, page: {size: 20}}) { count data { uuid } } }',
      { uuid, from, to },
    );
    assert.match(
      await page.locator('[data-section="executions"] [data-pager]').innerText(),
      new RegExp(`· ${formatCount(workflowExecutions.count)} executions`),
    );
    assert.equal(
      await page.locator('[data-figure="executions"]').innerText(),
      formatCount(workflowExecutions.count),
      'the headline and the table agree',
    );
    await page.locator('tr[data-execution] a').first().click();
    await complete(page, 'execution');
    await page.locator('.view-head a.crumb').click();
    await page.waitForURL((url) => url.searchParams.get('view') === 'workflow');
    assert.equal(new URL(page.url()).searchParams.get('window'), '7d', 'the breadcrumb keeps the window');
    await complete(page, 'workflow');
    await page.locator('nav[aria-label="Views"] a:has-text("Errors")').click();
    await page.waitForURL((url) => url.searchParams.get('view') === 'errors');
    assert.equal(new URL(page.url()).searchParams.get('window'), '7d');
    await complete(page, 'errors');
    // Back and forward show what was just loaded without asking again.
    const asked = tab.posts.length;
    await page.goBack();
    await complete(page, 'workflow');
    await page.goBack();
    await complete(page, 'execution');
    await page.goForward();
    await complete(page, 'workflow');
    assert.equal(tab.posts.length, asked, 'back and forward asked nothing');
    noProblems(tab);
  });

  it('pages, sorts and searches the workflows as the API does, and back and forward restore each state', async (t) => {
    const tab = await signedIn(t, '/?view=workflows&size=4');
    const { page } = tab;
    await complete(page, 'workflows');
    const names = () => texts(page, 'table[data-table="workflows"] tbody tr td:first-child');
    const apiNames = async (input: Record<string, unknown>) =>
      (
        (
          await world.api('query($input: WorkflowsInput!) { workflows(input: $input) { data { name } } }', {
            input,
          })
        ).workflows.data as Array<{ name: string }>
      ).map((w) => w.name);
    const first = await names();
    assert.deepEqual(first, await apiNames({ page: { size: 4 } }));
    assert.match(await page.locator('[data-pager]').innerText(), /page 1 of 2 · 6 workflows/);
    // Runs over the last 24 h equal the API's count for that workflow over the same window.
    const view = page.locator('[data-view="workflows"]');
    const [from, to] = [await view.getAttribute('data-from'), await view.getAttribute('data-to')];
    const row = page.locator('tr[data-workflow]').first();
    const uuid = (await row.getAttribute('data-workflow'))!;
    const { workflowExecutions } = await world.api(
      'query($uuid: String, $from: Time, $to: Time) { workflowExecutions(input: {workflowUuid: $uuid, from: $from, to: $to}) { count } }',
      { uuid, from, to },
    );
    assert.equal(await row.locator('[data-cell="runs"]').innerText(), formatCount(workflowExecutions.count));

    await page.click('a[rel="next"], .pager a:has-text("Next")');
    await page.waitForURL(/page=1/);
    await complete(page, 'workflows');
    assert.deepEqual(await names(), await apiNames({ page: { number: 1, size: 4 } }));

    await page.click('th a:has-text("name")');
    await page.waitForURL(/sort=NAME/);
    await complete(page, 'workflows');
    const sorted = await apiNames({ orderBy: { field: 'NAME', order: 'DESC' }, page: { size: 4 } });
    assert.deepEqual(await names(), sorted);

    const term = first[0]!.slice(0, 4);
    await page.fill('input[type="search"]', term);
    await page.waitForURL(new RegExp(`search=${encodeURIComponent(term)}`));
    await page.waitForFunction(
      (n) => document.querySelectorAll('tr[data-workflow]').length === n,
      (await apiNames({ search: term, page: { size: 4 } })).length,
    );
    assert.deepEqual(
      await names(),
      await apiNames({ search: term, orderBy: { field: 'NAME', order: 'DESC' }, page: { size: 4 } }),
    );

    // Typing replaced the sorted entry; back goes to page 2 unsorted, forward to the sorted one.
    await page.goBack();
    await page.waitForURL((url) => url.searchParams.get('page') === '1' && !url.searchParams.has('sort'));
    await complete(page, 'workflows');
    assert.deepEqual(await names(), await apiNames({ page: { number: 1, size: 4 } }));
    await page.goForward();
    await page.waitForURL(/sort=NAME/);
    noProblems(tab);
  });

  it("shows a workflow's figures, deployments and filtered executions as the API answers them, from a deep link", async (t) => {
    const { workflows } = await world.api('{ workflows(input: {page: {size: 1}}) { data { uuid name } } }');
    const uuid = workflows.data[0].uuid as string;
    const tab = await signedIn(t, `/?view=workflow&uuid=${uuid}&window=7d&status=FAILURE&size=5`);
    const { page } = tab;
    await complete(page, 'workflow');
    const from = (await page.locator('[data-view="workflow"]').getAttribute('data-from'))!;
    const to = (await page.locator('[data-view="workflow"]').getAttribute('data-to'))!;
    const answer = await world.api(
      `query($uuid: String!, $from: Time!, $to: Time) {
        all: workflowExecutions(input: {workflowUuid: $uuid, from: $from, to: $to}) { count }
        failed: workflowExecutions(input: {workflowUuid: $uuid, from: $from, to: $to, status: [FAILURE]}) { count }
        durationStats(input: {workflowUUID: $uuid, from: $from, to: $to}) { data { count p50Ms } }
        workflowDeployments(input: {workflowUUID: $uuid, page: {size: 20}}) { data { uuid executionCountByStatus { success failure } } }
        workflowExecutions(input: {workflowUuid: $uuid, status: [FAILURE], from: $from, to: $to, page: {size: 5}}) { count data { uuid } }
      }`,
      { uuid, from, to },
    );
    assert.equal(await page.locator('[data-figure="executions"]').innerText(), formatCount(answer.all.count));
    assert.equal(await page.locator('[data-figure="failure"]').innerText(), formatCount(answer.failed.count));
    // The executions table honours the window: its count is the window's failures.
    assert.match(
      await page.locator('[data-section="executions"] [data-pager]').innerText(),
      new RegExp(`· ${formatCount(answer.workflowExecutions.count)} executions`),
    );
    assert.equal(
      await page.locator('[data-figure="duration-count"]').innerText(),
      String(answer.durationStats.data.count),
    );
    assert.equal(
      await page.locator('[data-figure="p50"]').innerText(),
      formatDuration(answer.durationStats.data.p50Ms),
    );
    const deployments = answer.workflowDeployments.data as Array<{
      uuid: string;
      executionCountByStatus: { failure: number };
    }>;
    assert.deepEqual(
      await page.locator('li[data-deployment] [data-cell="failure"]').allTextContents(),
      deployments.map((d) => String(d.executionCountByStatus.failure)),
    );
    assert.deepEqual(
      await page
        .locator('tr[data-execution]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-execution'))),
      answer.workflowExecutions.data.map((e: { uuid: string }) => e.uuid),
    );
    assert.ok(await page.locator('input[type="checkbox"]').first().isVisible());
    assert.equal(
      await page.getByLabel('FAILURE', { exact: true }).isChecked(),
      true,
      'the filter from the link is shown',
    );
    noProblems(tab);
  });

  it("shows an execution's errors with their fingerprints, its capability timeline and its logs with the node filter and text search", async (t) => {
    const { workflowExecutions } = await world.api(
      '{ workflowExecutions(input: {status: [FAILURE], page: {size: 20}}) { data { uuid errors { error } } } }',
    );
    const failed = (workflowExecutions.data as Array<{ uuid: string; errors: unknown[] | null }>).find(
      (e) => e.errors?.length,
    )!;
    const uuid = failed.uuid;
    const { workflowExecutionEvents, workflowExecutionLogs } = await world.api(
      `query($uuid: String!) {
        workflowExecutionEvents(input: {workflowExecutionUUID: $uuid}) { data { capabilityID status errors { error } } }
        workflowExecutionLogs(input: {workflowExecutionUUID: $uuid}) { data { nodeID message } }
      }`,
      { uuid },
    );
    const tab = await signedIn(t, `/?view=execution&uuid=${uuid}`);
    const { page } = tab;
    await complete(page, 'execution');
    // The Gantt chart has a time axis, and its bars are reached by keyboard with their details.
    assert.equal(await page.locator('[data-tick]').count(), 5);
    await page.locator('.gantt-bar').first().focus();
    const firstEvent = (await page.locator('li[data-event]').first().getAttribute('data-event'))!;
    assert.match(await page.locator('[data-gantt-detail]').innerText(), new RegExp(firstEvent));
    await page.keyboard.press('Tab');
    assert.equal(await page.locator('.gantt-bar[aria-pressed="true"]').count(), 1);
    const failedBar = page.locator('li[data-failed="true"] .gantt-bar').first();
    if ((await failedBar.count()) > 0) {
      await failedBar.click();
      assert.match(await page.locator('[data-gantt-detail]').innerText(), /error:|FAIL/);
    }
    // The deployment it ran on and the workflow's runs before and after it, as the API has them.
    const { workflowExecution } = await world.api(
      'query($uuid: String!) { workflowExecution(input: {uuid: $uuid}) { data { workflowUUID startedAt } } }',
      { uuid },
    );
    const around = await world.api(
      `query($w: String!, $at: Time!) {
        workflowDeployments(input: {workflowUUID: $w, to: $at, orderBy: {field: DEPLOYED_AT, order: DESC}, page: {size: 1}}) { data { uuid } }
        before: workflowExecutions(input: {workflowUuid: $w, to: $at, page: {size: 3}}) { data { uuid startedAt } }
        after: workflowExecutions(input: {workflowUuid: $w, from: $at, orderBy: {field: STARTED_AT, order: ASC}, page: {size: 3}}) { data { uuid startedAt } }
      }`,
      { w: workflowExecution.data.workflowUUID, at: workflowExecution.data.startedAt },
    );
    const deployment = around.workflowDeployments.data[0];
    if (deployment)
      assert.match(await page.locator('[data-figure="deployment"]').innerText(), new RegExp(deployment.uuid));
    const at = Date.parse(workflowExecution.data.startedAt);
    const previous = (around.before.data as Array<{ uuid: string; startedAt: string }>).find(
      (e) => e.uuid !== uuid && Date.parse(e.startedAt) < at,
    );
    if (previous) {
      const link = (await page.locator('[data-neighbour="previous"]').getAttribute('href'))!;
      assert.equal(new URL(link, world.server.url).searchParams.get('uuid'), previous.uuid);
    }
    const next = (around.after.data as Array<{ uuid: string; startedAt: string }>).find(
      (e) => e.uuid !== uuid && Date.parse(e.startedAt) > at,
    );
    if (next) {
      const link = (await page.locator('[data-neighbour="next"]').getAttribute('href'))!;
      assert.equal(new URL(link, world.server.url).searchParams.get('uuid'), next.uuid);
    }
    assert.ok(previous || next, 'the workflow has other runs');
    assert.equal(await page.locator(`[data-copy="${uuid}"]`).count(), 1, 'the uuid has a copy button');
    assert.equal(await page.locator('li[data-error]').count(), failed.errors!.length);
    const events = workflowExecutionEvents.data as Array<{
      capabilityID: string;
      status: string;
      errors: unknown[] | null;
    }>;
    assert.deepEqual(await texts(page, 'li[data-event]').then((l) => l.length), events.length);
    const failedEvents = events.filter(
      (e) => (e.errors?.length ?? 0) > 0 || !['COMPLETED', 'SUCCESS'].includes(e.status),
    );
    assert.equal(await page.locator('li[data-event][data-failed="true"]').count(), failedEvents.length);
    for (const fingerprint of await page
      .locator('tr[data-fingerprint]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-fingerprint')))) {
      const { workflowExecutions: had } = await world.api(
        'query($fp: String, $uuid: String) { workflowExecutions(input: {errorFingerprint: $fp, search: $uuid}) { count } }',
        { fp: fingerprint, uuid },
      );
      assert.equal(had.count, 1, `the execution has an error of group ${fingerprint}`);
    }
    assert.ok(
      (await page.locator('tr[data-fingerprint]').count()) > 0,
      'the errors carry their fingerprints',
    );
    const logs = workflowExecutionLogs.data as Array<{ nodeID: string; message: string }>;
    assert.ok(logs.length > 0);
    const node = logs[0]!.nodeID;
    await page.selectOption('select', node);
    await page.waitForURL(/node=/);
    assert.equal(
      Number(await page.locator('ol.logs').getAttribute('data-log-count')),
      logs.filter((l) => l.nodeID === node).length,
    );
    const word = logs[0]!.message
      .split(/\s+/)
      .find((w) => w.length >= 4)!
      .toLowerCase();
    await page.fill('[data-section="logs"] input[type="search"]', word);
    await page.waitForURL(/q=/);
    await page.waitForFunction(
      (n) => document.querySelector('ol.logs')?.getAttribute('data-log-count') === String(n),
      logs.filter((l) => l.nodeID === node && l.message.toLowerCase().includes(word)).length,
    );
    noProblems(tab);
  });

  it('lists the error groups of the window with their counts, and opens a chosen group under its row with its pattern, sample, sightings and its executions paged with their workflow', async (t) => {
    const tab = await signedIn(t, '/?view=errors&window=7d');
    const { page } = tab;
    await complete(page, 'errors');
    const from = (await page.locator('[data-view="errors"]').getAttribute('data-from'))!;
    const to = (await page.locator('[data-view="errors"]').getAttribute('data-to'))!;
    const { errorGroups } = await world.api(
      'query($from: Time, $to: Time) { errorGroups(input: {from: $from, to: $to, page: {size: 20}}) { count data { fingerprint pattern sampleMessage occurrences executionCount } } }',
      { from, to },
    );
    const groups = errorGroups.data as Array<{
      fingerprint: string;
      pattern: string;
      sampleMessage: string;
      occurrences: number;
      executionCount: number;
    }>;
    assert.ok(groups.length > 1);
    assert.deepEqual(
      await page.locator('table[data-table="error-groups"] [data-cell="occurrences"]').allTextContents(),
      groups.map((g) => formatCount(g.occurrences)),
    );
    assert.equal(await page.locator('[data-scope]').getAttribute('data-scope'), 'all');
    // The group with most executions among the lower half of the list: its detail opens under it.
    const low = groups
      .slice(Math.floor(groups.length / 2))
      .reduce((a, b) => (b.executionCount > a.executionCount ? b : a));
    await page.locator(`tr[data-fingerprint="${low.fingerprint}"] td.pattern a`).click();
    await page.waitForURL(new RegExp(`fp=${low.fingerprint}`));
    await page.waitForSelector('[data-group-count]');
    const detail = page.locator('[data-section="group-detail"]');
    assert.equal(
      await page
        .locator(`tr[data-fingerprint="${low.fingerprint}"] + tr.detail-row [data-section="group-detail"]`)
        .count(),
      1,
      'the detail is the row right under the chosen group',
    );
    assert.ok(await detail.locator('h2').isVisible());
    const box = (await detail.locator('h2').boundingBox())!;
    assert.ok(box.y >= 0 && box.y < 900, `the detail is scrolled into view (at ${box.y})`);
    assert.equal(await detail.locator('h2').innerText(), low.pattern);
    assert.equal(await detail.locator('[data-figure="sample"]').innerText(), low.sampleMessage);
    assert.equal(
      await detail.locator('[data-figure="occurrences"]').innerText(),
      formatCount(low.occurrences),
    );
    const executions = async (number: number) =>
      (
        await world.api(
          'query($fp: String, $from: Time, $to: Time, $n: Int) { workflowExecutions(input: {errorFingerprint: $fp, from: $from, to: $to, page: {number: $n, size: 10}}) { count data { uuid workflowName } } }',
          { fp: low.fingerprint, from, to, n: number },
        )
      ).workflowExecutions;
    const first = await executions(0);
    assert.equal(first.count, low.executionCount);
    assert.equal(
      await page.locator('[data-group-count]').getAttribute('data-group-count'),
      String(first.count),
    );
    const linked = () =>
      detail
        .locator('tr[data-execution]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-execution')));
    assert.deepEqual(
      await linked(),
      first.data.map((e: { uuid: string }) => e.uuid),
    );
    assert.deepEqual(
      await detail.locator('tr[data-execution] td:nth-child(2)').allTextContents(),
      first.data.map((e: { workflowName: string }) => e.workflowName),
      'each execution shows its workflow',
    );
    if (first.count > 10) {
      await detail.locator('.pager a:has-text("Next")').click();
      await page.waitForURL(/gpage=1/);
      const second = await executions(1);
      await page.waitForFunction(
        (uuid) =>
          document.querySelector(`[data-section="group-detail"] tr[data-execution="${uuid}"]`) !== null,
        second.data[0].uuid,
      );
      assert.deepEqual(
        await linked(),
        second.data.map((e: { uuid: string }) => e.uuid),
      );
    }
    await detail.locator('tr[data-execution] a').first().click();
    await complete(page, 'execution');
    await page.goBack();
    await complete(page, 'errors');
    await page.waitForSelector('[data-section="group-detail"]');
    noProblems(tab);
  });

  it("refuses a bad key in the key form with the API's message, and a refused key from a link returns to the form", async (t) => {
    const bad = 'wfk_notarealkey0000000000000000000000';
    const answer = await world.server.gql(bad, '{ getOrganization { displayName } }');
    const message = answer.body.errors[0].message as string;
    const tab = await openPage(world);
    t.after(() => tab.context.close());
    const { page } = tab;
    await page.goto(world.server.url);
    await page.fill('#api-key', bad);
    await page.click('button[type="submit"]');
    await page.waitForSelector('#key-error');
    assert.equal(await page.locator('#key-error').innerText(), `The API refused the key: ${message}`);
    await page.goto(`${world.server.url}/?view=workflows#key=${bad}`);
    await page.waitForSelector('#key-error');
    assert.equal(await page.locator('#key-error').innerText(), `The API refused the key: ${message}`);
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'a refused key is not kept');
    // The browser logs failed requests (401) as console errors; nothing else may appear.
    assert.deepEqual(
      tab.problems.filter((p) => !p.includes('401')),
      [],
    );
  });

  it('refreshes the view every 15 s with what has arrived since, and not while refreshing is paused', async (t) => {
    const tab = await openPage(world);
    t.after(() => tab.context.close());
    const { page } = tab;
    // The page's clock is Playwright's: it runs on its own and is moved on by hand, and the page
    // notes the clock's time of each request it sends, so the interval is measured on that clock.
    await page.clock.install();
    await page.addInitScript(() => {
      const sent: number[] = [];
      Object.assign(window, { sentAt: sent });
      const send = window.fetch.bind(window);
      window.fetch = (...args: Parameters<typeof fetch>) => {
        sent.push(Date.now());
        return send(...args);
      };
    });
    const url = new URL('/', world.server.url);
    url.hash = `key=${encodeURIComponent(world.tenant.key)}`;
    await page.goto(url.toString());
    await complete(page, 'overview');
    const sentAt = () => page.evaluate(() => (window as unknown as { sentAt: number[] }).sentAt.slice());
    const loaded = await sentAt();
    const { workflows } = await world.api('{ workflows(input: {page: {size: 1}}) { data { uuid } } }');
    const arrivals: number[] = [];
    const arrives = () => {
      const startedAt = Date.now() - 60_000;
      arrivals.push(startedAt);
      return ingest(world.database.db, [
        execution(world.tenant.organizationId, workflows.data[0].uuid, {
          status: 'FAILURE',
          startedAt: new Date(startedAt).toISOString(),
          finishedAt: new Date(startedAt + 30_000).toISOString(),
        }),
      ]);
    };
    const view = page.locator('[data-view="overview"]');
    const shown = async () =>
      Number((await page.locator('[data-figure="executions"]').innerText()).replace(/,/g, ''));
    // The view's window ends at its clock's now, which this test moves on by more than a minute:
    // executions of the simulated day leave the window's start as new ones arrive. So each refresh
    // is checked against what the API answers for the window the view names, and that window
    // must hold every arrival. A refresh asks dozens of questions (each bucket's durations, each
    // workflow); on the embedded database beside the rest of the suite that has taken over 10 s.
    const refreshedPast = async (previousTo: string) => {
      try {
        await page.waitForFunction(
          (to) => {
            const shownView = document.querySelector('[data-view="overview"]');
            return (
              shownView?.getAttribute('data-complete') === 'true' && shownView.getAttribute('data-to') !== to
            );
          },
          previousTo,
          { timeout: 30_000 },
        );
      } catch {
        assert.fail(`the view still shows the window ending ${previousTo}`);
      }
      const from = (await view.getAttribute('data-from'))!;
      const to = (await view.getAttribute('data-to'))!;
      const { workflowExecutions } = await world.api(
        'query($from: Time, $to: Time) { workflowExecutions(input: {from: $from, to: $to}) { count } }',
        { from, to },
      );
      const answered = workflowExecutions.count as number;
      for (const startedAt of arrivals) {
        assert.ok(
          Date.parse(from) <= startedAt && startedAt <= Date.parse(to),
          'the window holds every arrival',
        );
      }
      assert.equal(await shown(), answered, `the view shows what the API answers for ${from}..${to}`);
      return to;
    };
    const firstTo = (await view.getAttribute('data-to'))!;

    await arrives();
    // A second at a time, until the view asks again.
    for (let s = 0; s < 30 && (await sentAt()).length === loaded.length; s++) {
      await page.clock.runFor(1_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const again = (await sentAt())[loaded.length];
    assert.ok(again !== undefined, 'the view asks again');
    const interval = again - (loaded[0] ?? 0);
    assert.ok(interval >= 14_000 && interval <= 17_500, `asked again after ${interval} ms`);
    const refreshedTo = await refreshedPast(firstTo);
    await complete(page, 'overview');

    await page.getByRole('button', { name: 'Pause refresh' }).click();
    const postsWhenPaused = tab.posts.length;
    const shownWhenPaused = await shown();
    await arrives();
    await page.clock.runFor(60_000);
    // Whatever the minute's timers sent is recorded once the page's own request is.
    await caughtUp(page, tab.requests);
    assert.equal(await shown(), shownWhenPaused, 'a paused view keeps what it shows');
    assert.equal(await view.getAttribute('data-to'), refreshedTo, 'a paused view keeps its window');
    assert.equal(tab.posts.length, postsWhenPaused, 'a paused view asks nothing');

    const beforeResume = (await sentAt()).length;
    const resumedAt = await page.evaluate(() => Date.now());
    await page.getByRole('button', { name: 'Resume refresh' }).click();
    // A second at a time, as above: the resumed view schedules its next request once it has
    // rendered, which a busy machine may leave until after one 15 s jump of the clock.
    for (let s = 0; s < 30 && (await sentAt()).length === beforeResume; s++) {
      await page.clock.runFor(1_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const resumed = (await sentAt())[beforeResume];
    assert.ok(resumed !== undefined, 'a resumed view asks again');
    assert.ok(resumed - resumedAt <= 17_500, `a resumed view asked again after ${resumed - resumedAt} ms`);
    await refreshedPast(refreshedTo);
    noProblems(tab);
  });

  it('finds an incident planted five hours ago through the chart: values on hover and focus, the bucket in progress marked, a dragged range as the window, then its error group', async (t) => {
    const { workflows } = await world.api('{ workflows(input: {page: {size: 1}}) { data { uuid } } }');
    const hour = 3_600_000;
    const at = Math.floor((Date.now() - 5 * hour) / hour) * hour + 10 * 60_000;
    const message = 'incident 4711: upstream oracle refused the report';
    await ingest(
      world.database.db,
      Array.from({ length: 40 }, (_, i) =>
        execution(world.tenant.organizationId, workflows.data[0].uuid, {
          status: 'FAILURE',
          startedAt: new Date(at + i * 60_000).toISOString(),
          finishedAt: new Date(at + i * 60_000 + 5_000).toISOString(),
          errors: [{ error: message, count: 1 }],
        }),
      ),
    );
    const tab = await signedIn(t, '/?window=24h');
    const { page } = tab;
    await complete(page, 'overview');
    const failures = page.locator('[data-section="outcomes"] .chart-canvas').nth(1);
    // The tallest failure bar is the incident's hour: hovering it reads its values.
    const bars = failures.locator('g[data-bucket] rect');
    const heights = await bars.evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('height'))));
    const tallest = bars.nth(heights.indexOf(Math.max(...heights)));
    // The panels above the chart grow with what is unusual now: bring the bar into view, as a user scrolls.
    await tallest.scrollIntoViewIfNeeded();
    const box = (await tallest.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const readout = page.locator('[data-section="outcomes"] [data-readout]').nth(1);
    assert.match(await readout.innerText(), /failure (\d+)/);
    assert.ok(
      Number(/failure (\d+)/.exec(await readout.innerText())![1]) >= 40,
      'the incident hour stands out',
    );
    // Keyboard: the chart is one Tab stop; End reaches the bucket in progress, marked partial.
    await failures.focus();
    await page.keyboard.press('End');
    assert.match(await readout.innerText(), /in progress, partial/);
    assert.equal(await failures.locator('g[data-bucket][data-partial="true"]').count(), 1);
    // Bars fill their bucket: the incident bar is nearly as wide as the plot divided by the buckets.
    const plot = (await failures.boundingBox())!;
    const buckets = await failures.locator('g[data-bucket]').count();
    assert.ok(
      box.width >= ((plot.width - 60) / buckets) * 0.8,
      `a bar ${box.width}px wide of ${buckets} buckets`,
    );
    // Dragging across the incident's hour makes that range the window.
    await page.mouse.move(box.x + 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 3 });
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2, { steps: 3 });
    await page.mouse.up();
    await page.waitForURL((url) => url.searchParams.has('from') && url.searchParams.has('to'));
    await page.waitForFunction(() => {
      const view = document.querySelector('[data-view="overview"]');
      return (
        view?.getAttribute('data-complete') === 'true' &&
        Date.parse(new URL(location.href).searchParams.get('from') ?? '') ===
          Date.parse(view.getAttribute('data-from') ?? '')
      );
    });
    const url = new URL(page.url());
    const from = url.searchParams.get('from')!;
    const to = url.searchParams.get('to')!;
    assert.ok(Date.parse(from) <= at && at + 39 * 60_000 <= Date.parse(to), 'the range holds the incident');
    assert.ok(Date.parse(to) - Date.parse(from) <= hour, 'the range is the hour dragged across');
    const { failed } = await world.api(
      'query($from: Time, $to: Time) { failed: workflowExecutions(input: {from: $from, to: $to, status: [FAILURE]}) { count } }',
      { from, to },
    );
    assert.ok(failed.count >= 40);
    assert.equal(await page.locator('[data-figure="failure"]').innerText(), formatCount(failed.count));
    // The errors view over the same range names the incident's group first.
    await page.locator('nav[aria-label="Views"] a:has-text("Errors")').click();
    await complete(page, 'errors');
    assert.equal(new URL(page.url()).searchParams.get('from'), from);
    const first = page.locator('tr[data-fingerprint]').first();
    assert.match(await first.locator('td.pattern a').innerText(), /^incident/);
    await first.locator('td.pattern a').click();
    await page.waitForSelector('[data-group-count]');
    assert.ok(Number(await page.locator('[data-group-count]').getAttribute('data-group-count')) >= 40);
    noProblems(tab);
  });

  it('searches log lines across executions with workflow and node filters, the term marked and each match linked to its execution', async (t) => {
    const { searchExecutionLogs: probe } = await world.api(
      '{ searchExecutionLogs(input: {query: "the", from: "2000-01-01T00:00:00Z", page: {size: 1}}) { data { message nodeID workflowUUID } } }',
    );
    const sample = probe.data[0] as { message: string; nodeID: string; workflowUUID: string };
    assert.ok(sample, 'the simulated logs hold lines');
    const term = sample.message
      .split(/\s+/)
      .find((w) => w.length >= 5)!
      .slice(0, 5);
    const tab = await signedIn(t, '/?view=logs&window=7d');
    const { page } = tab;
    await complete(page, 'logs');
    assert.ok(
      await page
        .locator('input[type="search"]')
        .first()
        .evaluate((e) => e === document.activeElement),
    );
    await page.locator('input[type="search"]').first().fill(term);
    await page.waitForSelector('[data-log-matches]');
    const view = page.locator('[data-view="logs"]');
    const variables = {
      q: term,
      from: await view.getAttribute('data-from'),
      to: await view.getAttribute('data-to'),
    };
    const { searchExecutionLogs } = await world.api(
      'query($q: String!, $from: Time, $to: Time) { searchExecutionLogs(input: {query: $q, from: $from, to: $to, page: {size: 50}}) { count data { workflowExecutionUUID } } }',
      variables,
    );
    assert.equal(
      await page.locator('[data-log-matches]').getAttribute('data-log-matches'),
      String(searchExecutionLogs.count),
    );
    assert.deepEqual(
      await page
        .locator('li[data-match]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-match'))),
      searchExecutionLogs.data.map((m: { workflowExecutionUUID: string }) => m.workflowExecutionUUID),
    );
    const marks = await page.locator('li[data-match] mark').allTextContents();
    assert.ok(
      marks.length > 0 && marks.every((m) => m.toLowerCase() === term.toLowerCase()),
      'the term is marked',
    );
    // Filters: the workflow and the node of the sample line.
    await page.selectOption('[data-view="logs"] select', sample.workflowUUID);
    await page.waitForURL(/workflow=/);
    await page.locator('input[type="search"]').nth(1).fill(sample.nodeID);
    await page.waitForURL(/node=/);
    const filtered = await world.api(
      'query($q: String!, $w: String, $n: String, $from: Time, $to: Time) { searchExecutionLogs(input: {query: $q, workflowUUID: $w, nodeID: $n, from: $from, to: $to, page: {size: 50}}) { count } }',
      { ...variables, w: sample.workflowUUID, n: sample.nodeID },
    );
    await page.waitForFunction(
      (n) => document.querySelector('[data-log-matches]')?.getAttribute('data-log-matches') === String(n),
      filtered.searchExecutionLogs.count,
    );
    const match = page.locator('li[data-match]').first();
    const uuid = (await match.getAttribute('data-match'))!;
    await match.locator('a:has-text("open the execution")').click();
    await complete(page, 'execution');
    assert.equal(new URL(page.url()).searchParams.get('uuid'), uuid);
    noProblems(tab);
  });

  it('lists capabilities with calls, failures, failure rate and p50/p95 as the API answers them, each failing one leading to its error groups', async (t) => {
    const tab = await signedIn(t, '/?view=capabilities&window=7d');
    const { page } = tab;
    await complete(page, 'capabilities');
    const view = page.locator('[data-view="capabilities"]');
    const variables = { from: await view.getAttribute('data-from'), to: await view.getAttribute('data-to') };
    const { capabilityStats } = await world.api(
      'query($from: Time, $to: Time) { capabilityStats(input: {from: $from, to: $to, page: {size: 50}}) { data { capabilityID calls failures failureRate } } }',
      variables,
    );
    const stats = capabilityStats.data as Array<{
      capabilityID: string;
      calls: number;
      failures: number;
      failureRate: number;
    }>;
    assert.ok(stats.length > 0);
    assert.deepEqual(
      await page
        .locator('tr[data-capability]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-capability'))),
      stats.map((c) => c.capabilityID),
    );
    assert.deepEqual(
      await page.locator('[data-cell="calls"]').allTextContents(),
      stats.map((c) => formatCount(c.calls)),
    );
    assert.deepEqual(
      await page.locator('[data-cell="failure-rate"]').allTextContents(),
      stats.map((c) => `${(c.failureRate * 100).toFixed(1)} %`),
    );
    const failing = stats.find((c) => c.failures > 0)!;
    await page.locator(`tr[data-capability="${failing.capabilityID}"] [data-cell="failures"] a`).click();
    await complete(page, 'errors');
    assert.equal(new URL(page.url()).searchParams.get('capability'), failing.capabilityID);
    const { errorGroups } = await world.api(
      'query($c: String, $from: Time, $to: Time) { errorGroups(input: {capabilityID: $c, from: $from, to: $to, page: {size: 20}}) { data { fingerprint } } }',
      { ...variables, c: failing.capabilityID },
    );
    await page.waitForFunction(
      (n) => document.querySelectorAll('tr[data-fingerprint]').length === n,
      errorGroups.data.length,
    );
    noProblems(tab);
  });

  it('passes axe-core without serious or critical violations on every view, desktop and phone, light and dark, with no horizontal scroll, and saves each as a screenshot', async (t) => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const { workflowExecutions } = await world.api(
      '{ workflowExecutions(input: {status: [FAILURE], page: {size: 1}}) { data { uuid workflowUUID } } }',
    );
    const failed = workflowExecutions.data[0];
    const { errorGroups } = await world.api(
      '{ errorGroups(input: {page: {size: 1}}) { data { fingerprint } } }',
    );
    const pages: Array<[string, string, string]> = [
      ['overview', '/', 'overview'],
      ['workflows', '/?view=workflows', 'workflows'],
      ['workflow', `/?view=workflow&uuid=${failed.workflowUUID}`, 'workflow'],
      ['execution', `/?view=execution&uuid=${failed.uuid}`, 'execution'],
      ['errors', `/?view=errors&window=7d&fp=${errorGroups.data[0].fingerprint}`, 'errors'],
      ['capabilities', '/?view=capabilities&window=7d', 'capabilities'],
      ['logs', '/?view=logs&window=7d&q=error', 'logs'],
    ];
    const sizes = [
      ['', { width: 1440, height: 900 }],
      ['-phone', { width: 390, height: 844 }],
    ] as const;
    for (const [suffix, viewport] of sizes) {
      for (const scheme of ['light', 'dark'] as const) {
        const tab = await signedIn(t, '/?view=workflows', scheme);
        const { page } = tab;
        await page.setViewportSize(viewport);
        for (const [name, path, view] of pages) {
          await page.goto(new URL(path, world.server.url).toString());
          await complete(page, view);
          if (name === 'errors') await page.waitForSelector('[data-group-count]');
          assert.deepEqual(await seriousViolations(page), [], `${name} (${scheme}${suffix})`);
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          assert.ok(overflow <= 0, `${name} (${scheme}${suffix}) scrolls ${overflow}px sideways`);
          await page.screenshot({
            path: `${SCREENSHOTS}/${name}-${scheme}${suffix}.png`,
            fullPage: name !== 'execution' && suffix === '',
          });
        }
        await page.goto(world.server.url);
        await page.click('text=Sign out');
        await page.waitForSelector('#api-key');
        assert.deepEqual(await seriousViolations(page), [], `key form (${scheme}${suffix})`);
        await page.screenshot({ path: `${SCREENSHOTS}/key-form-${scheme}${suffix}.png` });
        noProblems(tab);
      }
    }
  });
});
