import { encodeCursor } from '@voice/shared';
import postgres from 'postgres';
import type { Histories, Tenant } from './seed';
import { median, percentile } from './support';
import type { Platform } from './topology';

/**
 * GET /v1/calls at two history sizes (history section): the first page, a page filtered by status,
 * and a page 5,000 pages deep, each asked for one at a time (latency, not throughput), the sizes
 * and queries taking turns so the machine's other load falls on all alike.
 */

export const HISTORY_PAGE_SIZE = 20;
/** The deep page: 5,000 pages of 20 before it. */
export const DEEP_PAGE = 5001;

export interface HistoryQueryResult {
  query: string;
  calls: number;
  /** The deep page's page number (the last there is in a short history). */
  page: number;
  /** How the deep page was reached: `cursor` (keyset) or `page` (a page number, OFFSET). */
  via: 'first' | 'cursor' | 'page';
  latenciesMs: number[];
  p50: number;
  p95: number;
}

export interface HistoryRun {
  calls: { small: number; large: number };
  requests: number;
  results: HistoryQueryResult[];
}

interface Query {
  name: string;
  calls: number;
  page: number;
  via: HistoryQueryResult['via'];
  path: string;
  key: string;
}

type PageBody = { data: { items: { id: string }[]; next_cursor?: string | null } };

async function get(base: string, path: string, key: string): Promise<{ ms: number; body: PageBody }> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return { ms, body: JSON.parse(text) as PageBody };
}

/**
 * The cursor of page `page`, built from the row just before it (the last of page - 1), read
 * straight from the call schema with an OFFSET once: walking 5,000 pages through the API to get it
 * would be the slow part of the bench. It is written as the list writes its own (the paging
 * seam's `encodeCursor`, the list's name taken from a cursor the list gave), so a change of the
 * cursor's layout shows as a 422 here rather than a wrong figure. Undefined when the list answers
 * no cursors (before keyset paging): then the deep page is asked for by number.
 */
async function deepCursor(
  databaseUrl: string,
  base: string,
  tenant: Tenant,
  page: number,
): Promise<string | undefined> {
  const first = await get(base, `/v1/calls?page_size=${HISTORY_PAGE_SIZE}`, tenant.key);
  const given = first.body.data.next_cursor;
  if (typeof given !== 'string') return undefined;
  const parts = JSON.parse(Buffer.from(given, 'base64url').toString('utf8')) as unknown[];
  const list = typeof parts[0] === 'string' ? parts[0] : undefined;
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ sort_at: string; id: string }[]>`
      SELECT created_at::text AS sort_at, id FROM call.calls WHERE account_id = ${tenant.accountId}
      ORDER BY created_at DESC, id DESC OFFSET ${(page - 1) * HISTORY_PAGE_SIZE - 1} LIMIT 1`;
    if (!row) throw new Error(`no row before page ${page}`);
    return encodeCursor(page, [row.sort_at, row.id], list);
  } finally {
    await sql.end();
  }
}

async function queriesOf(platform: Platform, histories: Histories): Promise<Query[]> {
  const queries: Query[] = [];
  for (const tenant of [histories.small, histories.large]) {
    const base = `/v1/calls?page_size=${HISTORY_PAGE_SIZE}`;
    const page = Math.min(DEEP_PAGE, Math.ceil(tenant.calls / HISTORY_PAGE_SIZE));
    const cursor = await deepCursor(platform.databaseUrl, platform.url, tenant, page);
    const common = { calls: tenant.calls, key: tenant.key };
    queries.push(
      { ...common, name: 'first page', page: 1, via: 'first', path: base },
      { ...common, name: 'status=no_answer', page: 1, via: 'first', path: `${base}&status=no_answer` },
      cursor
        ? { ...common, name: 'deep page', page, via: 'cursor', path: `${base}&cursor=${cursor}` }
        : { ...common, name: 'deep page', page, via: 'page', path: `${base}&page=${page}` },
    );
  }
  return queries;
}

/** Every query `requests` times after `warmup` unmeasured rounds, round-robin. */
export async function historyRun(
  platform: Platform,
  histories: Histories,
  settings: { requests: number; warmup: number },
  log: (line: string) => void,
): Promise<HistoryRun> {
  const queries = await queriesOf(platform, histories);
  const latencies = queries.map(() => [] as number[]);
  for (let round = 0; round < settings.warmup + settings.requests; round++) {
    for (const [i, query] of queries.entries()) {
      const { ms, body } = await get(platform.url, query.path, query.key);
      if (body.data.items.length !== HISTORY_PAGE_SIZE) {
        throw new Error(`${query.name} of ${query.calls} calls had ${body.data.items.length} items`);
      }
      if (round >= settings.warmup) latencies[i]!.push(ms);
    }
  }
  const results = queries.map((query, i) => {
    const sorted = [...latencies[i]!].sort((a, b) => a - b);
    return {
      query: query.name,
      calls: query.calls,
      page: query.page,
      via: query.via,
      latenciesMs: sorted,
      p50: median(sorted),
      p95: percentile(sorted, 95),
    };
  });
  for (const r of results) {
    log(
      `  ${platform.name} ${r.query.padEnd(18)} ${String(r.calls).padStart(8)} calls  p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms${r.via === 'page' ? ' (page number)' : ''}`,
    );
  }
  return {
    calls: { small: histories.small.calls, large: histories.large.calls },
    requests: settings.requests,
    results,
  };
}
