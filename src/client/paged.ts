/** The shape every paged answer has: one page of items and the total across pages. */
export interface PageOf<Item> {
  readonly data: readonly Item[];
  readonly count: number;
}

export interface PageRequest {
  readonly number: number;
  readonly size: number;
}

/** The largest page the API serves; iteration asks for it unless the caller chose a size. */
export const MAX_PAGE_SIZE = 100;

/**
 * Every item of a paged list, fetched one page at a time as the caller consumes them. Pages
 * count from 0 (or from the caller's `page.number`); iteration stops at the first short page or
 * once `number * size` reaches `count`. Pages are offsets: items inserted while iterating may
 * shift a page and appear twice; bound the list (e.g. `to` on executions) to iterate a fixed set.
 */
export class PageIterator<Item, Page extends PageOf<Item> = PageOf<Item>> implements AsyncIterable<Item> {
  constructor(
    private readonly fetchPage: (page: PageRequest) => Promise<Page>,
    private readonly first: Partial<PageRequest> = {},
  ) {}

  /** The pages themselves, for their `count` (e.g. to show progress). */
  async *pages(): AsyncGenerator<Page, void, undefined> {
    const size = this.first.size ?? MAX_PAGE_SIZE;
    for (let number = this.first.number ?? 0; ; number++) {
      const page = await this.fetchPage({ number, size });
      yield page;
      if (page.data.length < size || (number + 1) * size >= page.count) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Collects every item; for lists known to be small. */
  async toArray(): Promise<Item[]> {
    const items: Item[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
