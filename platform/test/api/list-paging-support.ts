import type { PageOf } from '@voice/shared';
import { idsOf, walkPages } from '@voice/shared/testing';
import { expect } from 'vitest';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';

/** Checks every list endpoint must pass when it pages by cursor as well as by number. */

/** A list endpoint as a customer reaches it: the gateway's address, a key, the list's path. */
export interface ListEndpoint {
  url: string;
  key: string;
  path: string;
}

type Issue = { loc: (string | number)[]; msg: string; type: string };

function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  return `${path}?${params}`;
}

/** One page of the list, asked for over HTTP; fails the test on anything but a 200. */
export async function listPage<T = { id: string }>(
  list: ListEndpoint,
  query: Record<string, string | number | undefined>,
): Promise<PageOf<T>> {
  const res = await api<Envelope<PageOf<T>>>(list.url, 'GET', withQuery(list.path, query), { key: list.key });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** Every page of the list by cursor, `pageSize` items a page. */
export function walkList(
  list: ListEndpoint,
  pageSize: number,
  between?: (page: PageOf<{ id: string }>) => Promise<void>,
) {
  return walkPages((cursor) => listPage(list, { page_size: pageSize, cursor }), {
    ...(between ? { between } : {}),
  });
}

/**
 * Walks the list by cursor and by page number: both hold exactly `expected` (each once, in the
 * same order), page n by cursor is page n by number (same items, same next_cursor), and every page
 * counts the whole (small) list exactly. Answers the ids in list order.
 */
export async function expectCursorAndNumberPagesAgree(
  list: ListEndpoint,
  expected: readonly string[],
  pageSize: number,
): Promise<string[]> {
  const pages = await walkList(list, pageSize);
  const ids = idsOf(pages);
  expect(ids).toHaveLength(expected.length);
  expect(new Set(ids)).toEqual(new Set(expected));
  expect(pages).toHaveLength(Math.max(1, Math.ceil(expected.length / pageSize)));
  for (const [index, page] of pages.entries()) {
    const byNumber = await listPage(list, { page: index + 1, page_size: pageSize });
    const summary = (p: PageOf<{ id: string }>) => ({
      ids: p.items.map((item) => item.id),
      page: p.page,
      total: p.total,
      total_exact: p.total_exact,
      total_pages: p.total_pages,
      has_more: p.has_more,
      next_cursor: p.next_cursor,
    });
    expect(summary(page), `page ${index + 1} by cursor`).toEqual(summary(byNumber));
    expect(page).toMatchObject({
      page: index + 1,
      page_size: pageSize,
      total: expected.length,
      total_exact: true,
      total_pages: Math.ceil(expected.length / pageSize),
      has_more: index < pages.length - 1,
    });
  }
  return ids;
}

/** A cursor as the lists make them (base64url JSON of [page, ...sort key]), for crafted ones. */
export const craftCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Cursors no list hands out: garbage, wrong shapes, too long, and `extra` (the list's own key
 * with values of the wrong kind or not of its columns' types). Each is a 422 on cursor.
 */
export async function expectBadCursorsRefused(list: ListEndpoint, extra: readonly string[]): Promise<void> {
  const cursors = [
    'not a cursor!',
    craftCursor({ page: 2 }),
    craftCursor([]),
    craftCursor([1, 'a', 'b']),
    craftCursor([2.5, 'a', 'b']),
    craftCursor([2, 'x'.repeat(201), 'b']),
    'x'.repeat(513),
    ...extra,
  ];
  for (const cursor of cursors) {
    const res = await api<ErrorEnvelope>(list.url, 'GET', withQuery(list.path, { cursor }), {
      key: list.key,
    });
    expect(res.status, `${cursor}: ${res.text}`).toBe(422);
    expect(
      (res.body.detail as Issue[]).map((issue) => issue.loc),
      cursor,
    ).toContainEqual(['query', 'cursor']);
  }
}
