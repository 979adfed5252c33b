import { describe, expect, it } from 'vitest';
import { PAGE_MAX, PageQuery } from '../src/contracts/common';

const parse = (query: Record<string, unknown>) => {
  const result = PageQuery.safeParse(query);
  return result.success
    ? result.data
    : result.error.issues.map((issue) => [issue.path.join('.'), issue.code, issue.message]);
};

/** Page numbers as a query string carries them (digits) or as GraphQL, tRPC and the bus do (numbers). */
describe('PageQuery', () => {
  it('defaults to page 1 of 20', () => {
    expect(parse({})).toEqual({ page: 1, page_size: 20 });
  });

  it('takes digits and whole numbers within the bounds', () => {
    expect(parse({ page: '3', page_size: '0100' })).toEqual({ page: 3, page_size: 100 });
    expect(parse({ page: 3, page_size: 1 })).toEqual({ page: 3, page_size: 1 });
    expect(parse({ page: String(PAGE_MAX) })).toEqual({ page: PAGE_MAX, page_size: 20 });
  });

  it('refuses any other form as one "Invalid input"', () => {
    for (const page of [
      '',
      '-1',
      '2.5',
      '1e3',
      '0x10',
      ' 1',
      'abc',
      '1234567890',
      null,
      ['1', '2'],
      true,
      {},
      NaN,
    ]) {
      expect(parse({ page }), JSON.stringify(page)).toEqual([['page', 'invalid_union', 'Invalid input']]);
    }
  });

  it('refuses numbers out of bounds or not whole, naming the bound', () => {
    expect(parse({ page: '0' })).toEqual([['page', 'too_small', 'Too small: expected number to be >=1']]);
    expect(parse({ page_size: '101' })).toEqual([
      ['page_size', 'too_big', 'Too big: expected number to be <=100'],
    ]);
    expect(parse({ page: PAGE_MAX + 1 })).toEqual([
      ['page', 'too_big', `Too big: expected number to be <=${PAGE_MAX}`],
    ]);
    expect(parse({ page: 1.5 })).toEqual([
      ['page', 'invalid_type', 'Invalid input: expected int, received number'],
    ]);
  });
});
