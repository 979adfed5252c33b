import type { PageOf } from '../src/contracts/common';

export interface WalkOptions<T> {
  /** Fails the walk past this many pages, so a cursor that never ends fails the test instead of hanging it. */
  maxPages?: number;
  /** Runs after each page but the last, before the next is asked for (to add rows while paging). */
  between?: (page: PageOf<T>, index: number) => Promise<void>;
}

/**
 * Every page of a list by cursor: the first page (no cursor), then each page's `next_cursor`
 * until one is null. `fetchPage` asks the list through whatever surface the test checks (HTTP,
 * the bus, GraphQL) with the cursor it is given.
 */
export async function walkPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<PageOf<T>>,
  options: WalkOptions<T> = {},
): Promise<PageOf<T>[]> {
  const maxPages = options.maxPages ?? 1_000;
  const pages: PageOf<T>[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    pages.push(page);
    if (page.next_cursor === null) return pages;
    if (pages.length >= maxPages)
      throw new Error(`walkPages: still a next_cursor after ${maxPages} pages; a cursor that never ends?`);
    await options.between?.(page, pages.length - 1);
    cursor = page.next_cursor;
  }
}

/** The ids of every item the pages hold, in order (repeats kept, so a test can see them). */
export function idsOf(pages: readonly PageOf<{ id: string }>[]): string[] {
  return pages.flatMap((page) => page.items.map((item) => item.id));
}
