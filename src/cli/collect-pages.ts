import { MAX_PAGE_SIZE, type PageIterator, type PageOf } from '../client/index.js';

export interface Collected<Item> {
  /** The total the server reported across all pages. */
  readonly count: number;
  readonly items: Item[];
}

/**
 * The first `limit` items of a paged list (all of them without a limit), the total, and the last
 * page fetched (for what else a page says, e.g. whether its count is exact).
 */
export async function collectPages<Item, Page extends PageOf<Item>>(
  iterator: PageIterator<Item, Page>,
  limit: number | undefined,
): Promise<Collected<Item> & { readonly last: Page | undefined }> {
  const items: Item[] = [];
  let count = 0;
  let last: Page | undefined;
  for await (const page of iterator.pages()) {
    last = page;
    count = page.count;
    items.push(...page.data.slice(0, limit === undefined ? undefined : limit - items.length));
    if (limit !== undefined && items.length >= limit) break;
  }
  return { count, items, last };
}

/** The page size that fetches `limit` items in the fewest requests. */
export function pageSizeFor(limit: number | undefined): number {
  return limit === undefined ? MAX_PAGE_SIZE : Math.max(1, Math.min(MAX_PAGE_SIZE, limit));
}
