import { describe, expect, it } from 'vitest';
import { type CursorKind, decodeCursor, encodeCursor } from '../src/db/paging';

const refused = (cursor: string, kinds: CursorKind[]) => {
  try {
    decodeCursor(cursor, kinds);
    return undefined;
  } catch (error) {
    return (error as { code?: string; detail?: unknown }).detail;
  }
};
const cursorLoc = [
  {
    loc: ['query', 'cursor'],
    msg: 'Not a cursor of this list: pass a next_cursor as it was given',
    type: 'invalid_cursor',
  },
];

/** Keys of the forms a keyset compares as uuid, timestamptz or integer, checked before any query. */
describe('decodeCursor kinds', () => {
  const id = '3f0c9a4e-8a0b-4c3e-9f47-2d3c1b2a7e10';
  it('reads what PostgreSQL and the lists write', () => {
    for (const at of [
      '2026-11-26 18:30:19.123456+00',
      '2026-02-28 00:00:00+05:30',
      '2024-02-29 23:59:59-03',
    ]) {
      expect(decodeCursor(encodeCursor(2, [at, id]), ['timestamp', 'uuid'])).toEqual({
        page: 2,
        key: [at, id],
      });
    }
    expect(decodeCursor(encodeCursor(7, [123_456]), ['integer'])).toEqual({ page: 7, key: [123_456] });
  });

  it('refuses an edited key as a 422 on the cursor, never a value for PostgreSQL to refuse', () => {
    for (const at of [
      '2026-02-30 00:00:00+00',
      '2026-13-01 00:00:00+00',
      '2026-11-26 24:00:00+00',
      '2026-11-26T18:30:19Z',
      'yesterday',
      '',
    ]) {
      expect(refused(encodeCursor(2, [at, id]), ['timestamp', 'uuid']), at).toEqual(cursorLoc);
    }
    for (const bad of ['x', `${id}0`, 42]) {
      expect(
        refused(encodeCursor(2, ['2026-11-26 18:30:19+00', bad as string]), ['timestamp', 'uuid']),
      ).toEqual(cursorLoc);
    }
    for (const bad of [1.5, 2 ** 60, '7']) {
      expect(refused(encodeCursor(2, [bad as number]), ['integer']), String(bad)).toEqual(cursorLoc);
    }
  });
});
