// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatCount } from '../../src/console/web/time.js';
import { requireEngine } from '../harness/engines.js';
import { createTenant } from '../harness/fixtures.js';
import { type ConsoleWorld, complete, openConsoleWorld, openPage, seed } from './console-session.js';

/** What one overview load may cost, whatever the size of the organization. */
const MOST_REQUESTS = 8;

const needsChromium = await requireEngine('chromium');
describe('the console overview costs a few requests however many workflows there are', needsChromium, () => {
  let world: ConsoleWorld;
  let small: string;
  before(async () => {
    world = await openConsoleWorld({ workflows: 200, executions: 1500, days: 1 });
    const tenant = await createTenant(world.database.db, 'Small Org');
    await seed(world.database, tenant.organizationId, {
      workflows: 20,
      executions: 600,
      days: 1,
      seed: 'console-small',
    });
    small = tenant.key;
  });
  after(async () => {
    await world?.close();
  });

  for (const size of [20, 200]) {
    it(`loads the overview of ${size} workflows in at most ${MOST_REQUESTS} requests, each window, with the figures of the window`, async (t) => {
      const key = size === 200 ? world.tenant.key : small;
      const { workflows } = (await world.server.gql(key, '{ workflows(input: {}) { count } }')).body.data;
      assert.equal(workflows.count, size);
      const tab = await openPage(world);
      t.after(() => tab.context.close());
      const { page } = tab;
      for (const window of ['24h', '7d', '1h', '30d']) {
        const url = new URL(`/?window=${window}`, world.server.url);
        url.hash = `key=${encodeURIComponent(key)}`;
        const before = tab.posts.length;
        await page.goto(url.toString());
        await complete(page, 'overview');
        const sent = tab.posts.length - before;
        assert.ok(sent <= MOST_REQUESTS, `${window}: ${sent} requests`);
        t.diagnostic(`${size} workflows, ${window}: ${sent} requests`);
        const view = page.locator('[data-view="overview"]');
        const variables = {
          from: await view.getAttribute('data-from'),
          to: await view.getAttribute('data-to'),
        };
        const answer = (
          await world.server.gql(
            key,
            `query($from: Time, $to: Time) {
              all: workflowExecutions(input: {from: $from, to: $to}) { count }
              failed: workflowExecutions(input: {from: $from, to: $to, status: [FAILURE]}) { count }
            }`,
            variables,
          )
        ).body.data;
        assert.equal(
          await page.locator('[data-figure="executions"]').innerText(),
          formatCount(answer.all.count),
        );
        assert.equal(
          await page.locator('[data-figure="failure"]').innerText(),
          formatCount(answer.failed.count),
        );
      }
      // Back and forward between views show what was just loaded, without asking again.
      await page.locator('nav[aria-label="Views"] a:has-text("Workflows")').click();
      await complete(page, 'workflows');
      const asked = tab.posts.length;
      await page.goBack();
      await complete(page, 'overview');
      await page.goForward();
      await complete(page, 'workflows');
      assert.equal(tab.posts.length, asked);
      assert.deepEqual(tab.problems, []);
    });
  }
});
