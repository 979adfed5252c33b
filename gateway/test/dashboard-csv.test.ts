import { describe, expect, it } from 'vitest';
import { contactsOf, guessPhoneColumn, parseCsv, readTable } from '../dashboard/src/pages/campaigns-csv';

/** The campaign form's CSV reader (gateway/dashboard/src/pages/campaigns-csv.ts), by RFC 4180's cases. */
describe('the dashboard CSV reader', () => {
  it('splits records on CRLF, LF and CR, with no empty record for a final line end', () => {
    expect(parseCsv('a,b\r\n1,2\n3,4\r5,6\r\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
      ['5', '6'],
    ]);
    expect(parseCsv('a,b')).toEqual([['a', 'b']]);
    expect(parseCsv('')).toEqual([]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks, and keeps empty fields', () => {
    expect(parseCsv('name,note\r\n"Quinn, Jr.","said ""hi""\r\nthen left",\r\n,,')).toEqual([
      ['name', 'note'],
      ['Quinn, Jr.', 'said "hi"\r\nthen left', ''],
      ['', '', ''],
    ]);
  });

  it('drops a byte-order mark and blank lines, and trims the column names', () => {
    const table = readTable('\ufeff phone , name\n\n+14155550100,Ada\n\n');
    expect(table).toEqual({ header: ['phone', 'name'], rows: [['+14155550100', 'Ada']] });
  });

  it('guesses the phone column by its name, else the first column', () => {
    expect(guessPhoneColumn(['name', 'Phone Number', 'city'])).toBe('Phone Number');
    expect(guessPhoneColumn(['name', 'number', 'phone'])).toBe('phone');
    expect(guessPhoneColumn(['name', 'home_phone'])).toBe('home_phone');
    expect(guessPhoneColumn(['name', 'city'])).toBe('name');
    expect(guessPhoneColumn([])).toBe('');
  });

  it('makes one flat contact per row, every column a key, cells a short row lacks left out', () => {
    const table = readTable('name,phone,city\nAda,+14155550100,Paris\nBob,+14155550101\n');
    expect(contactsOf(table)).toEqual([
      { name: 'Ada', phone: '+14155550100', city: 'Paris' },
      { name: 'Bob', phone: '+14155550101' },
    ]);
  });
});
