import { randomUUID } from 'node:crypto';
import {
  Call,
  type CallFilters,
  createLogger,
  createSql,
  csvCell,
  type ExportChunk,
  type ExportFormat,
  hasRecording,
  migrate,
  type Sql,
  TranscriptEntry,
} from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallExport } from '../src/app/call-export';
import { type CallChanges, callRepository, type NewCall, newCallRow } from '../src/db/call-repository';
import { type CallRow, toCall } from '../src/db/call-rows';
import { exportLines } from '../src/db/export-rows';
import { migrations } from '../src/db/migrations';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'export-lines-test' });
const ACCOUNT = randomUUID();
const OTHER = randomUUID();
const AGENT = randomUUID();
const LINK = (id: string) => `https://voice.example/v1/recordings/${id}.wav?expires=1&signature=ab,"c`;

/**
 * The export's lines as they were written before the call service wrote them (the gateway
 * formatted the API's records, each checked against the Call contract): the oracle the faster
 * writing must match byte for byte.
 */
const COLUMNS: [string, (call: Call) => unknown][] = [
  ['id', (c) => c.id],
  ['status', (c) => c.status],
  ['phone_number', (c) => c.phone_number],
  ['source_number', (c) => c.source_number],
  ['agent_id', (c) => c.agent.id],
  ['agent_name', (c) => c.agent.name],
  ['agent_type', (c) => c.agent_type],
  ['campaign_id', (c) => c.campaign_id],
  ['created_at', (c) => c.created_at],
  ['answered_at', (c) => c.answered_at],
  ['ended_at', (c) => c.ended_at],
  ['duration_seconds', (c) => c.duration_seconds],
  ['sentiment', (c) => c.sentiment],
  ['call_end_reason', (c) => c.call_end_reason],
  ['ended_by', (c) => c.ended_by],
  ['call_summary', (c) => c.call_summary],
  ['details_status', (c) => c.details_collection?.status],
  ['details_score', (c) => c.details_collection?.score],
  ['collected_values', (c) => c.details_collection?.collected_values],
  ['metadata', (c) => c.metadata],
  ['transcript', (c) => c.transcript],
  ['ai_cost', (c) => c.ai_cost],
  ['telephony_cost', (c) => c.telephony_cost],
  ['total_cost', (c) => c.total_cost],
  ['cost_currency', (c) => c.cost_currency],
  ['recording_url', (c) => c.recording_url],
  ['prompt_hash', (c) => c.prompt_hash],
  ['carrier', (c) => c.telephony.carrier],
  ['trunk_id', (c) => c.telephony.trunk_id],
  ['sip_code', (c) => c.telephony.sip_code],
  ['sip_reason', (c) => c.telephony.sip_reason],
  ['opted_out', (c) => c.opted_out],
];

function expectedLine(row: CallRow, format: ExportFormat): string {
  const record = Call.parse(toCall(row));
  const call = { ...record, recording_url: hasRecording(record) ? LINK(record.id) : '' };
  if (format === 'jsonl') return `${JSON.stringify(call)}\n`;
  return `${COLUMNS.map(([, read]) => csvCell(read(call))).join(',')}\r\n`;
}

/** Lines of a body (a failure then shows the line that differs). */
const lines = (body: string) => body.split(/(?<=\n)/);

/** An export's chunks put together as the gateway does, links signed by LINK. */
function joined(chunks: ExportChunk[], format: ExportFormat): string {
  const written = format === 'csv' ? csvCell : (url: string) => JSON.stringify(url).slice(1, -1);
  const parts: Buffer[] = [];
  for (const chunk of chunks) {
    const data = Buffer.from(chunk.data, 'base64');
    let from = 0;
    for (const [at, id] of chunk.links) {
      parts.push(data.subarray(from, at), Buffer.from(written(LINK(id))));
      from = at;
    }
    parts.push(data.subarray(from));
  }
  return Buffer.concat(parts).toString('utf8');
}

const transcript = (lines: number, confidence?: number) =>
  Array.from({ length: lines }, (_, i) => ({
    role: i % 2 === 0 ? 'agent' : 'user',
    content: `Line ${i}: "quoted", back\\slash, tab\t, new\nline, é, 😀, \u0001, comma, and a formula =1+1`,
    timestamp: '12:00:01',
    ...(i % 2 === 1 && confidence !== undefined ? { confidence } : {}),
  }));

/** Calls whose records hold every kind of value a line must write exactly as JavaScript would. */
function tricky(): Record<string, unknown>[] {
  const base = {
    account_id: ACCOUNT,
    agent_id: AGENT,
    agent_snapshot: { id: AGENT, name: 'Riley, "the" agent', agent_type: 'sales', voice: 'alloy' },
    campaign_id: null,
    phone_number: '+14155550123',
    source_number: '+14155550100',
    metadata: {
      name: 'Jordan',
      tags: ['a', 'b'],
      deep: { x: -0.5, y: 0.000001, big: 123456789012345680000, t: true },
      emoji: '😀',
      ctl: '\u0001\u001f\u007f\u2028',
      quote: '"=1"',
    },
    status: 'completed',
    created_at: '2026-11-26T10:00:00.123Z',
    started_at: '2026-11-26T10:00:00.123Z',
    answered_at: '2026-11-26T10:00:01.999Z',
    ended_at: '2026-11-26T10:01:02.5Z',
    duration_seconds: 61,
    transcript: transcript(4, 0.93),
    sentiment: 'positive',
    call_summary: 'A summary',
    call_end_reason: 'conversation_completed',
    ended_by: 'agent',
    details_collection: {
      status: 'partial',
      score: 0.3333333333333333,
      collected_details: ['budget'],
      collected_values: { budget: 500000, when: 'soon', note: 'a, "b"' },
    },
    ai_cost: '0.0600',
    telephony_cost: '0.0140',
    total_cost: '0.0740',
    prompt_version_id: null,
    prompt_hash: 'sha256:abc',
    carrier: 'simulated',
    trunk_id: null,
    sip_code: 200,
    sip_reason: 'OK',
    opted_out: false,
  };
  return [
    base,
    {
      ...base,
      status: 'no_answer',
      answered_at: null,
      duration_seconds: 0,
      transcript: [],
      sentiment: null,
      metadata: null,
      details_collection: null,
      sip_code: 480,
      sip_reason: '=HYPERLINK("x")',
      call_summary: '-2 is not a number\r\nbut text',
      agent_snapshot: { id: AGENT, name: '@agent\n', agent_type: '+not a number' },
    },
    {
      ...base,
      metadata: {},
      details_collection: { ...base.details_collection, collected_values: {}, score: 1 },
      campaign_id: randomUUID(),
      ai_cost: '12345678.1234',
      telephony_cost: '0.0001',
      total_cost: '12345678.1235',
      duration_seconds: 100,
      opted_out: true,
      carrier: 'sip',
      trunk_id: randomUUID(),
      sip_reason: null,
      sip_code: null,
      ended_by: null,
      call_end_reason: null,
    },
    { ...base, transcript: transcript(200, 0.5), status: 'voicemail', duration_seconds: 7 },
    { ...base, status: 'in_progress', ended_at: null, duration_seconds: 0, call_summary: null },
    // Odd: what the database would write otherwise than JavaScript. Keys V8 orders first, numbers
    // JavaScript writes with an exponent, nulls (in the metadata, the details, the transcript).
    { ...base, metadata: { '10': 'ten', '2': 'two', b: { '0': true } } },
    { ...base, metadata: { a: null, b: ['x', null] } },
    { ...base, metadata: { tiny: 1e-7, small: -1.5e-9 } },
    { ...base, metadata: { huge: [1e21, -2e22] } },
    {
      ...base,
      details_collection: { ...base.details_collection, collected_values: { '2': 'two', '10': 'ten' } },
    },
    { ...base, transcript: transcript(6, 5e-7) },
  ];
}

/** How many of tricky()'s calls are odd: the last six, one for each thing that makes a call odd. */
const ODD_CALLS = 6;

describe.each(infraModes())('call export lines (%s)', (mode) => {
  let db: TestDatabase;
  let sql: Sql;
  let exporter: CallExport;

  async function insert(rows: Record<string, unknown>[]): Promise<void> {
    for (const row of rows) {
      await sql`INSERT INTO call.calls ${sql({ id: randomUUID(), ...row } as never)}`;
    }
  }

  async function stored(account: string, filters: CallFilters = {}): Promise<CallRow[]> {
    return sql<CallRow[]>`
      SELECT * FROM call.calls WHERE account_id = ${account}
      ${filters.status ? sql`AND status = ${filters.status}` : sql``}
      ORDER BY created_at DESC, id DESC`;
  }

  async function exported(
    account: string,
    format: ExportFormat,
    limit: number,
    filters: CallFilters = {},
  ): Promise<ExportChunk[]> {
    const chunks: ExportChunk[] = [];
    let after: ExportChunk['next'] = null;
    do {
      const chunk: ExportChunk = await exporter.chunk(account, { ...filters, format, after, limit });
      chunks.push(chunk);
      after = chunk.next;
    } while (after);
    return chunks;
  }

  beforeAll(async () => {
    db = await createTestDatabase(mode);
    sql = createSql(db.url, { max: 4, log, applicationName: 'export-lines-test' });
    await migrate(sql, migrations, log);
    exporter = new CallExport(sql);
    const rows = tricky();
    await insert(rows);
    // Many calls in one millisecond, and some apart by microseconds only: the cursor must not
    // skip or repeat any of them.
    await insert(
      Array.from({ length: 40 }, (_, i) => ({
        ...rows[i % rows.length],
        created_at: i < 20 ? '2026-11-25T09:00:00.500Z' : '2026-11-25T08:00:00.500Z',
      })),
    );
    // Microseconds, which a parameter would lose (postgres.js sends a timestamptz through a Date).
    await sql`
      UPDATE call.calls c SET created_at = c.created_at + m.n * interval '7 microseconds',
        started_at = c.started_at + interval '456 microseconds', answered_at = c.answered_at + interval '999 microseconds'
      FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM call.calls
        WHERE created_at = '2026-11-25T08:00:00.5Z' OR created_at = '2026-11-26T10:00:00.123Z') m
      WHERE c.id = m.id AND m.n % 3 > 0`;
    await insert([{ ...rows[0], account_id: OTHER }]);
  });
  afterAll(async () => {
    await sql?.end();
    await db?.drop();
  });

  it('the transcript entry keys are in jsonb order, which the database writes as the record has them', () => {
    const keys = Object.keys(TranscriptEntry.shape);
    const jsonbOrder = [...keys].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
    expect(keys).toEqual(jsonbOrder);
  });

  for (const format of ['jsonl', 'csv'] as const) {
    it(`writes ${format} byte for byte as the records were written, every call once, newest first`, async () => {
      const rows = await stored(ACCOUNT);
      const header = format === 'csv' ? `${COLUMNS.map(([name]) => name).join(',')}\r\n` : '';
      const expected = header + rows.map((row) => expectedLine(row, format)).join('');
      for (const limit of [1, 3, 100]) {
        const chunks = await exported(ACCOUNT, format, limit);
        expect(chunks.reduce((sum, c) => sum + c.rows, 0)).toBe(rows.length);
        expect(lines(joined(chunks, format))).toEqual(lines(expected));
      }
    });
  }

  it('has the database write every line but the odd ones', async () => {
    const account = randomUUID();
    await insert(tricky().map((row) => ({ ...row, account_id: account })));
    for (const format of ['jsonl', 'csv'] as const) {
      const read = await exportLines(sql, account, { format, after: null, limit: 100 });
      expect(read.filter((line) => line.before === null)).toHaveLength(ODD_CALLS);
      expect(read.filter((line) => line.before !== null)).toHaveLength(tricky().length - ODD_CALLS);
    }
  });

  it('writes the transcripts the service stored with their text as those stored before it, byte for byte', async () => {
    // Each call of tricky() as the service writes it: placed (the transcript empty), then ended with
    // its transcript by either writer (a grouped move, the locked transition), both of which store
    // the transcript's text beside it (migration 014). Besides them, calls stored before that
    // migration and one placed and never ended (neither has a text: the export makes it).
    const account = randomUUID();
    const rows = tricky().map((row) => ({ ...row, account_id: account }) as unknown as CallRow);
    const placed = rows.map((row, i) => {
      const call = { ...row, id: randomUUID(), owner: 'export-lines-test' } as NewCall;
      return newCallRow(account, call, new Date(Date.parse(String(row.created_at)) - i));
    });
    expect(await callRepository.placeAll(sql, placed)).toHaveProperty('size', placed.length);
    // What a call's last transition writes (transitions.ts).
    const ended = (row: CallRow): CallChanges & { status: CallRow['status'] } => ({
      status: row.status,
      answered_at: row.answered_at,
      ended_at: row.ended_at,
      duration_seconds: row.duration_seconds,
      transcript: row.transcript,
      sentiment: row.sentiment,
      call_summary: row.call_summary,
      call_end_reason: row.call_end_reason,
      ended_by: row.ended_by,
      details_collection: row.details_collection,
      opted_out: row.opted_out,
      ai_cost: row.ai_cost,
      telephony_cost: row.telephony_cost,
      total_cost: row.total_cost,
      sip_code: row.sip_code,
      sip_reason: row.sip_reason,
      owner: null,
    });
    const grouped = placed.filter((_, i) => i % 2 === 0);
    const moved = await callRepository.advanceAll(
      sql,
      grouped.map((from) => {
        const to = { ...from, ...ended(rows[placed.indexOf(from)]!), sequence: 2 };
        return { from, to, at: new Date(), ended: undefined };
      }),
    );
    expect(moved.size).toBe(grouped.length);
    for (const from of placed.filter((_, i) => i % 2 === 1)) {
      const changes = ended(rows[placed.indexOf(from)]!);
      await sql.begin((tx) => callRepository.transition(tx, from, changes, new Date()));
    }
    await callRepository.placeAll(sql, [
      newCallRow(account, { ...placed[0]!, id: randomUUID() }, new Date('2026-11-27T00:00:00.000Z')),
    ]);
    await insert(
      tricky().map((row) => ({ ...row, account_id: account, created_at: '2026-11-26T11:00:00.000Z' })),
    );

    const [texts] = await sql<{ stored: number; before: number; differ: number }[]>`
      SELECT count(*) FILTER (WHERE transcript_text IS NOT NULL)::int AS stored,
        count(*) FILTER (WHERE transcript_text IS NULL)::int AS before,
        count(*) FILTER (WHERE transcript_text <> json_strip_nulls(transcript::json)::text)::int AS differ
      FROM call.calls WHERE account_id = ${account}`;
    expect(texts).toEqual({ stored: placed.length, before: tricky().length + 1, differ: 0 });
    const all = await stored(account);
    expect(all.filter((row) => row.transcript.length > 0).length).toBeGreaterThan(tricky().length);
    for (const format of ['jsonl', 'csv'] as const) {
      const header = format === 'csv' ? `${COLUMNS.map(([name]) => name).join(',')}\r\n` : '';
      const expected = header + all.map((row) => expectedLine(row, format)).join('');
      for (const limit of [3, 100]) {
        expect(lines(joined(await exported(account, format, limit), format))).toEqual(lines(expected));
      }
      const read = await exportLines(sql, account, { format, after: null, limit: 100 });
      expect(read.filter((line) => line.before === null)).toHaveLength(2 * ODD_CALLS);
    }
  });

  it('honours the filters and the account', async () => {
    const rows = await stored(ACCOUNT, { status: 'no_answer' });
    const chunks = await exported(ACCOUNT, 'jsonl', 5, { status: 'no_answer' });
    expect(lines(joined(chunks, 'jsonl'))).toEqual(rows.map((row) => expectedLine(row, 'jsonl')));
    const other = await exported(OTHER, 'jsonl', 5);
    expect(other.reduce((sum, c) => sum + c.rows, 0)).toBe(1);
    const none = await exported(randomUUID(), 'csv', 5);
    expect(none).toHaveLength(1);
    expect(none[0]!.next).toBeNull();
    expect(joined(none, 'csv').split('\r\n')).toHaveLength(2);
  });

  it('ends a chunk before its byte limit: a call that does not fit starts the next chunk', async () => {
    const big = randomUUID();
    // About 270 KB of JSON each: two fit in a chunk of 640 KiB, a third does not.
    await insert(
      Array.from({ length: 5 }, (_, i) => ({
        ...tricky()[0],
        account_id: big,
        created_at: `2026-11-24T10:00:0${i}.000Z`,
        transcript: transcript(2000, 0.5),
      })),
    );
    const chunks = await exported(big, 'jsonl', 100);
    expect(chunks.map((c) => c.rows)).toEqual([2, 2, 1]);
    const rows = await stored(big);
    expect(lines(joined(chunks, 'jsonl'))).toEqual(rows.map((row) => expectedLine(row, 'jsonl')));
  });
});
