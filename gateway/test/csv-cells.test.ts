import { describe, expect, it } from 'vitest';
import { csvCell } from '../src/export/call-export';

describe('CSV export cells', () => {
  it('leaves E.164 phone numbers as they are: only digits follow the +', () => {
    for (const phone of ['+14155550100', '+442071838750', '+12345678']) expect(csvCell(phone)).toBe(phone);
  });

  it('prefixes with a quote any other text a spreadsheet would run as a formula', () => {
    expect(csvCell('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('+1+cmd|calc')).toBe("'+1+cmd|calc");
    expect(csvCell('+1 415 555 0100')).toBe("'+1 415 555 0100");
    expect(csvCell('+1234567890123456')).toBe("'+1234567890123456");
    expect(csvCell('+14155550100\n=1')).toBe(`"'+14155550100\n=1"`);
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
  });

  it('never prefixes numbers or ordinary text, and quotes per RFC 4180', () => {
    expect(csvCell(-0.5)).toBe('-0.5');
    expect(csvCell('Dana')).toBe('Dana');
    expect(csvCell('a, "b"')).toBe('"a, ""b"""');
    expect(csvCell({ note: '=1' })).toBe('"{""note"":""=1""}"');
    expect(csvCell(null)).toBe('');
  });
});
