import type { ExportKind, ExportRun, ExportSize } from './export';
import type { HistoryRun } from './history';
import { median } from './support';

/** BENCHMARKS.md lines of the history and export sections. */

const LABELS: Record<string, string> = {
  embedded: 'embedded default',
  nats: 'NATS topology',
};
const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : 'n/a');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const count = (n: number) => n.toLocaleString('en-US');

/** Target: p50 at the long history within 2x of the short one's. */
const HISTORY_RATIO_MAX = 2;
/** Target: an export's memory does not grow with its size (the serving process's RSS growth). */
const EXPORT_RSS_MAX = 100 * 2 ** 20;

export function historyLines(section: Record<string, HistoryRun>): string[] {
  const out = [
    '## History: GET /v1/calls at two history sizes',
    '',
    'Two accounts of the same calls (copies of a completed call with its real transcript, one in ten `no_answer` without one), seeded straight into the call schema, then VACUUM (ANALYZE) as a long-lived history is. Each query asked one request at a time (latency, not throughput), the queries and sizes taking turns, after 5 unmeasured rounds. The deep page is page 5,001 of 20 (the last page, 50, of the short history), asked for with the cursor the list would have given on page 5,000: built from the row before that page (read once with an OFFSET from the call schema) with the paging seam\u2019s `encodeCursor`, since walking 5,000 pages to get it would be the slow part of the bench; marked "page number" when the list gave no cursors and the page was asked for by number instead. Target: p50 at the long history within 2x of p50 at the short one.',
    '',
    '| platform | query | calls | p50 ms | p95 ms |',
    '|---|---|---:|---:|---:|',
  ];
  for (const [name, run] of Object.entries(section)) {
    for (const r of run.results) {
      const query =
        r.query === 'deep page'
          ? `page ${r.page}${r.via === 'page' ? ' (page number)' : ' (cursor)'}`
          : r.query;
      out.push(`| ${LABELS[name] ?? name} | ${query} | ${count(r.calls)} | ${f1(r.p50)} | ${f1(r.p95)} |`);
    }
  }
  out.push(
    '',
    '| platform | query | p50 short | p50 long | ratio | target | met |',
    '|---|---|---:|---:|---:|---:|---|',
  );
  for (const [name, run] of Object.entries(section)) {
    for (const query of [...new Set(run.results.map((r) => r.query))]) {
      const short = run.results.find((r) => r.query === query && r.calls === run.calls.small);
      const long = run.results.find((r) => r.query === query && r.calls === run.calls.large);
      if (!short || !long) continue;
      const ratio = long.p50 / short.p50;
      out.push(
        `| ${LABELS[name] ?? name} | ${query} | ${f1(short.p50)} | ${f1(long.p50)} | ${f2(ratio)} | <= ${HISTORY_RATIO_MAX} | ${ratio <= HISTORY_RATIO_MAX ? 'yes' : '**no**'} |`,
      );
    }
  }
  out.push('');
  return out;
}

const rowsPerS = (run: ExportRun) => run.rows / run.seconds;

function medianOf(runs: ExportRun[], read: (run: ExportRun) => number): number {
  return median(runs.map(read));
}

export function exportLines(section: Record<string, ExportSize[]>): string[] {
  const out = [
    '## Export',
    '',
    '`GET /v1/calls/export` of every call of an account (copies of a completed call with its real transcript, one in ten `no_answer`), CSV and JSON lines, read by a client on this machine, against PostgreSQL\u2019s own `COPY (SELECT * FROM call.calls WHERE account_id = ... ORDER BY created_at DESC, id DESC) TO STDOUT (FORMAT csv)` of the same rows on the same server: how fast those rows leave the database at all. The kinds take turns, the order rotating each round, the platform idle before each. Ratio: the export\u2019s rows/s over COPY\u2019s in the same round (median of rounds). Platform CPU: the CPU time of the platform\u2019s processes (all threads, /proc) per call exported, not PostgreSQL\u2019s. Memory: the serving process\u2019s RSS (/proc/<pid>/status VmRSS) sampled every 20 ms, its peak over its size before the run. Target: RSS growth < 100 MB at either size (constant memory).',
    '',
    '| platform | calls | kind | rounds | MB | seconds | rows/s | MB/s | ratio to COPY (per round) | platform CPU µs/row | RSS before MB | RSS growth MB | other processes |',
    '|---|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|',
  ];
  for (const [name, sizes] of Object.entries(section)) {
    for (const size of sizes) {
      for (const kind of ['copy', 'csv', 'jsonl'] as ExportKind[]) {
        const runs = size.runs[kind];
        if (runs.length === 0) continue;
        const ratios =
          kind === 'copy' ? [] : runs.map((run, i) => rowsPerS(run) / rowsPerS(size.runs.copy[i] ?? run));
        const growth = medianOf(runs, (r) => r.rssGrowth);
        const others = Object.keys(runs[0]!.otherGrowth)
          .map((n) => `${n} +${mb(medianOf(runs, (r) => r.otherGrowth[n]!))} MB`)
          .join(', ');
        out.push(
          `| ${LABELS[name] ?? name} | ${count(size.calls)} | ${kind === 'copy' ? 'COPY (reference)' : kind} | ${runs.length} | ${mb(medianOf(runs, (r) => r.bytes))} | ${f1(medianOf(runs, (r) => r.seconds))} | ${f0(medianOf(runs, rowsPerS))} | ${f1(medianOf(runs, (r) => r.bytes / 2 ** 20 / r.seconds))} | ${kind === 'copy' ? '-' : `**${f2(median(ratios))}** (${ratios.map(f2).join(', ')})`} | ${kind === 'copy' ? '-' : f0(medianOf(runs, (r) => (r.platformCpu / r.rows) * 1e6))} | ${kind === 'copy' ? '-' : mb(medianOf(runs, (r) => r.rssBefore))} | ${kind === 'copy' ? '-' : `${mb(growth)}${growth < EXPORT_RSS_MAX ? '' : ' (**over 100**)'}`} | ${kind === 'copy' ? '-' : others || '-'} |`,
        );
      }
    }
  }
  out.push('');
  return out;
}
