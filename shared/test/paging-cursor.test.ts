import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, pageEnd, pageStart } from '../src/db/paging';
import { AppError } from '../src/errors';

const KINDS = ['timestamp', 'uuid'] as const;
const ID = '0b6f7a52-9a51-4d2c-8a5e-2a8f3f1f0c11';
const AT = '2026-11-26 18:30:19.123456+00';
const raw = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString('base64url');

/** The 422 a bad cursor answers, or what came back instead. */
function refusal(cursor: string, list?: string): unknown {
  try {
    return decodeCursor(cursor, KINDS, list);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return [error.status, error.detail];
  }
}
const REFUSED = [
  422,
  [{ loc: ['query', 'cursor'], msg: expect.any(String) as unknown as string, type: 'invalid_cursor' }],
];

describe('list cursors', () => {
  it('reads back the page and key it was made with, for its own list only', () => {
    expect(decodeCursor(encodeCursor(3, [AT, ID], 'calls'), KINDS, 'calls')).toEqual({
      page: 3,
      key: [AT, ID],
    });
    expect(decodeCursor(encodeCursor(2, ['2026-01-05 07:00:00-05:30', ID]), KINDS)).toEqual({
      page: 2,
      key: ['2026-01-05 07:00:00-05:30', ID],
    });
    expect(refusal(encodeCursor(3, [AT, ID], 'agents'), 'calls')).toEqual(REFUSED);
    expect(refusal(encodeCursor(3, [AT, ID]), 'calls')).toEqual(REFUSED);
    expect(refusal(encodeCursor(3, [AT, ID], 'calls'))).toEqual(REFUSED);
  });

  it('refuses garbage and edited keys with a 422 on cursor, before any query is built', () => {
    for (const cursor of [
      'not a cursor',
      '%%%',
      raw({ page: 2 }),
      raw(['calls', 2, AT]),
      raw(['calls', 1, AT, ID]),
      raw(['calls', 2.5, AT, ID]),
      raw(['calls', 1_000_000_000, AT, ID]),
      raw(['calls', 2 ** 40, AT, ID]),
      raw(['calls', '2', AT, ID]),
      raw(['calls', 2, AT, 'not-a-uuid']),
      raw(['calls', 2, AT, `${ID}'--`]),
      raw(['calls', 2, 'yesterday', ID]),
      raw(['calls', 2, '2026-02-30 10:00:00+00', ID]),
      raw(['calls', 2, '2026-13-01 10:00:00+00', ID]),
      raw(['calls', 2, '2026-11-26 24:00:00+00', ID]),
      raw(['calls', 2, '2026-11-26 10:00:00+16', ID]),
      raw(['calls', 2, '0000-11-26 10:00:00+00', ID]),
      raw(['calls', 2, '2026-11-26 10:00:00.1234567+00', ID]),
      raw(['calls', 2, 1_700_000_000, ID]),
    ]) {
      expect(refusal(cursor, 'calls'), cursor).toEqual(REFUSED);
    }
  });

  it('starts a cursor page after its key, and ends it with a cursor only when more rows follow', () => {
    const start = pageStart(
      { page: 1, page_size: 2, cursor: encodeCursor(4, [AT, ID], 'calls') },
      KINDS,
      'calls',
    );
    expect(start).toEqual({ page: 4, after: [AT, ID], offset: 0, limit: 3, list: 'calls' });
    const rows = [
      { at: '2026-11-26 18:30:19+00', id: ID },
      { at: '2026-11-26 18:30:18+00', id: ID },
      { at: '2026-11-26 18:30:17+00', id: ID },
    ];
    const full = pageEnd(rows, start, 2, (row) => [row.at, row.id]);
    expect(full.rows).toEqual(rows.slice(0, 2));
    expect(decodeCursor(full.nextCursor!, KINDS, 'calls')).toEqual({ page: 5, key: [rows[1]!.at, ID] });
    expect(pageEnd(rows.slice(0, 2), start, 2, (row) => [row.at, row.id]).nextCursor).toBeNull();
    expect(pageStart({ page: 3, page_size: 20 }, KINDS, 'calls')).toMatchObject({
      page: 3,
      offset: 40,
      limit: 21,
    });
  });
});
