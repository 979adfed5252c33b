import postgres from 'postgres';
import type { Tenant } from './seed';
import { cpuSecondsOf, rssOf, waitQuiet } from './support';
import type { Platform } from './topology';

/**
 * The call export (export section): `GET /v1/calls/export` in both formats against PostgreSQL's own
 * `COPY (SELECT ...) TO STDOUT` of the same rows on the same server, the reference of how fast
 * those rows can leave the database at all, at two history sizes, with the platform's memory
 * watched meanwhile.
 */

export type ExportKind = 'copy' | 'csv' | 'jsonl';

export interface ExportRun {
  kind: ExportKind;
  rows: number;
  bytes: number;
  seconds: number;
  /** CPU seconds the platform's processes used meanwhile (not PostgreSQL's): 0 for COPY. */
  platformCpu: number;
  /** Growth of the serving process's RSS (its peak, sampled every 20 ms, over its size before). */
  rssBefore: number;
  rssPeak: number;
  rssGrowth: number;
  /** The call service's growth too, when it is its own process (NATS topology). */
  otherGrowth: Record<string, number>;
}

export interface ExportSize {
  calls: number;
  runs: Record<ExportKind, ExportRun[]>;
}

const KINDS: ExportKind[] = ['copy', 'csv', 'jsonl'];
const UUID = /^[0-9a-f-]{36}$/;

/** Memory of the platform's processes that serve an export, sampled while `work` runs. */
async function watched<T>(
  platform: Platform,
  work: () => Promise<T>,
): Promise<{ result: T } & Pick<ExportRun, 'rssBefore' | 'rssPeak' | 'rssGrowth' | 'otherGrowth'>> {
  const processes = platform.processes.filter((c) => c === platform.serving || c.name.endsWith('-call'));
  const before = new Map(processes.map((c) => [c.pid, rssOf(c.pid)]));
  const peak = new Map(before);
  const sampler = setInterval(() => {
    for (const c of processes) peak.set(c.pid, Math.max(peak.get(c.pid)!, rssOf(c.pid)));
  }, 20);
  let result: T;
  try {
    result = await work();
  } finally {
    clearInterval(sampler);
  }
  const serving = platform.serving.pid;
  const growth = (pid: number) => peak.get(pid)! - before.get(pid)!;
  return {
    result,
    rssBefore: before.get(serving)!,
    rssPeak: peak.get(serving)!,
    rssGrowth: growth(serving),
    otherGrowth: Object.fromEntries(
      processes.filter((c) => c.pid !== serving).map((c) => [c.name, growth(c.pid)]),
    ),
  };
}

/** Bytes and lines of a byte stream, counted as it arrives and never kept. */
async function counted(stream: AsyncIterable<Uint8Array>): Promise<{ bytes: number; lines: number }> {
  let bytes = 0;
  let lines = 0;
  for await (const chunk of stream) {
    bytes += chunk.byteLength;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
  }
  return { bytes, lines };
}

async function exportOnce(platform: Platform, tenant: Tenant, format: 'csv' | 'jsonl') {
  const res = await fetch(`${platform.url}/v1/calls/export?format=${format}`, {
    headers: { authorization: `Bearer ${tenant.key}` },
  });
  if (res.status !== 200) throw new Error(`export answered ${res.status}`);
  const { bytes, lines } = await counted(res.body as unknown as AsyncIterable<Uint8Array>);
  // A CSV cell may hold line breaks (quoted): the line count is then more than the calls.
  return { bytes, rows: format === 'csv' ? lines - 1 : lines };
}

/**
 * The same rows as the export, newest first, as PostgreSQL writes them (CSV), read from the same
 * server by a client on this machine: every column, so the database does at least the export's
 * work. COPY takes no parameters; the account id is our own uuid, checked.
 */
async function copyOnce(databaseUrl: string, tenant: Tenant) {
  if (!UUID.test(tenant.accountId)) throw new Error('not an account id');
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const stream = await sql
      .unsafe(`COPY (SELECT * FROM call.calls WHERE account_id = '${tenant.accountId}'
        ORDER BY created_at DESC, id DESC) TO STDOUT (FORMAT csv)`)
      .readable();
    const { bytes, lines } = await counted(stream);
    return { bytes, rows: lines };
  } finally {
    await sql.end();
  }
}

/**
 * Each kind `rounds` times on an account of `calls` calls, the order rotating each round, the
 * platform quiet before each run.
 */
export async function exportSize(
  platform: Platform,
  tenant: Tenant,
  calls: number,
  rounds: number,
  log: (line: string) => void,
): Promise<ExportSize> {
  const runs: Record<ExportKind, ExportRun[]> = { copy: [], csv: [], jsonl: [] };
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < KINDS.length; i++) {
      const kind = KINDS[(i + round) % KINDS.length]!;
      await waitQuiet(
        platform.processes.map((p) => p.pid),
        60_000,
      );
      const started = performance.now();
      const cpu = () => platform.processes.reduce((sum, p) => sum + cpuSecondsOf(p.pid), 0);
      const cpuBefore = cpu();
      const { result, ...memory } = await watched(platform, () =>
        kind === 'copy' ? copyOnce(platform.databaseUrl, tenant) : exportOnce(platform, tenant, kind),
      );
      const seconds = (performance.now() - started) / 1000;
      const platformCpu = kind === 'copy' ? 0 : cpu() - cpuBefore;
      const run: ExportRun = { kind, ...result, seconds, platformCpu, ...memory };
      runs[kind].push(run);
      log(
        `  round ${round + 1} ${platform.name} ${calls} calls ${kind.padEnd(5)} ${run.rows} rows ${(run.bytes / 2 ** 20).toFixed(0)} MB in ${run.seconds.toFixed(1)} s: ${(run.rows / run.seconds).toFixed(0)} rows/s, ${(run.bytes / 2 ** 20 / run.seconds).toFixed(1)} MB/s; platform CPU ${((run.platformCpu / run.rows) * 1e6).toFixed(0)} µs/row; RSS +${(run.rssGrowth / 2 ** 20).toFixed(1)} MB`,
      );
    }
  }
  return { calls, runs };
}
