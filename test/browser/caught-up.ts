import type { Page } from 'playwright-core';
import { eventually } from '../harness/eventually.js';

/**
 * Resolves once every request `page` had made so far is in `requests` (recorded from its
 * 'request' events as `METHOD /path?query`): the page sends a request of its own, and the events
 * come in the order the page makes the requests. What shows that a page sent nothing, without
 * waiting a while to see.
 */
export async function caughtUp(page: Page, requests: readonly string[]): Promise<void> {
  const path = `/healthz?caught-up=${requests.length}-${Date.now()}`;
  // XMLHttpRequest, not fetch: a test may count the page's fetches.
  await page.evaluate(
    `new Promise((done) => { const x = new XMLHttpRequest(); x.onloadend = done; x.open('GET', ${JSON.stringify(path)}); x.send(); })`,
  );
  await eventually(() => requests.includes(`GET ${path}`), `the page's own request ${path} was not seen`);
}

/** A request as `caughtUp` finds it in the list. */
export const requestLine = (method: string, url: string): string => {
  const { pathname, search } = new URL(url);
  return `${method} ${pathname}${search}`;
};
