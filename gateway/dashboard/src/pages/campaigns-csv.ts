/**
 * A CSV file as the campaign form reads it (RFC 4180: comma-separated, fields optionally in double
 * quotes, "" for a quote inside them, CRLF or LF line ends, quoted fields may span lines). Hand-written
 * rather than a library: this is all the form needs, and it costs nothing against the first-load budget.
 */
export interface CsvTable {
  header: string[];
  rows: string[][];
}

/** Every record of `text`; a trailing line end does not make an empty record. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte-order mark is not part of the first name
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/** The first record names the columns; blank lines are dropped. */
export function readTable(text: string): CsvTable {
  const records = parseCsv(text).filter((record) => record.length > 1 || (record[0] ?? '').trim() !== '');
  const [header = [], ...rows] = records;
  return { header: header.map((name) => name.trim()), rows };
}

const PHONE_NAMES = ['phone', 'phone_number', 'phonenumber', 'number', 'mobile', 'tel', 'telephone'];

/** The column that most likely holds the numbers: one named like a phone column, else the first. */
export function guessPhoneColumn(header: string[]): string {
  const plain = (name: string) => name.toLowerCase().replace(/[\s-]/g, '_');
  for (const wanted of PHONE_NAMES) {
    const found = header.find((name) => plain(name) === wanted);
    if (found !== undefined) return found;
  }
  return header.find((name) => plain(name).includes('phone')) ?? header[0] ?? '';
}

/**
 * The contacts as the API takes them: one flat object per row, keyed by the column names, so the
 * phone column carries the number and every other column becomes a contact variable. A short row's
 * missing cells are left out (a missing phone is then reported as such by the dry run).
 */
export function contactsOf(table: CsvTable): Record<string, string>[] {
  return table.rows.map((row) => {
    const contact: Record<string, string> = {};
    table.header.forEach((name, index) => {
      const value = row[index];
      if (name !== '' && value !== undefined) contact[name] = value;
    });
    return contact;
  });
}
