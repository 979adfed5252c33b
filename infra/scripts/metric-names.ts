/**
 * Metric names for `pnpm infra:check`: the ones the platform exports (read from the source, plus
 * prom-client's process metrics) and the ones a Grafana dashboard's queries use.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Metrics } from '../../shared/src/metrics/metrics';

/** Where metrics are defined: `metrics.counter('name', ...)`, `.histogram(...)`, `.gauge(...)`. */
const SOURCE_ROOTS = ['shared/src', 'gateway/src', 'services'];
const DEFINITION = /\.(counter|histogram|gauge)(?:<[^>(]*>)?\(\s*'([a-zA-Z_:][a-zA-Z0-9_:]*)'/g;
/** The series Prometheus stores for a histogram (and a summary) besides its name. */
const SERIES_SUFFIXES = ['_bucket', '_sum', '_count'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'test' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every series name the platform can expose, by the kind of its metric. */
export async function exportedSeries(root: string): Promise<Set<string>> {
  const series = new Set<string>();
  const add = (name: string, type: string) => {
    series.add(name);
    if (type === 'histogram' || type === 'summary')
      for (const suffix of SERIES_SUFFIXES) series.add(name + suffix);
  };
  for (const file of SOURCE_ROOTS.flatMap((dir) => sourceFiles(join(root, dir)))) {
    for (const match of readFileSync(file, 'utf8').matchAll(DEFINITION)) add(match[2]!, match[1]!);
  }
  // The process metrics (CPU, memory, event loop, GC) every process exposes beside its own.
  const exposition = await new Metrics({ role: 'check' }).exposition();
  for (const match of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) add(match[1]!, match[2]!);
  return series;
}

const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

/** The metric names a PromQL expression selects (functions, labels and keywords left out). */
export function metricsInPromQL(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""') // strings
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // ranges, $__rate_interval included
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\$\w+/g, ' '); // dashboard variables
  const names: string[] = [];
  for (const match of bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    const word = match[1]!;
    if (match[2] || PROMQL_WORDS.has(word.toLowerCase())) continue;
    // Part of a number such as 1e3 or 0.95.
    if (/[0-9.]$/.test(bare.slice(0, match.index))) continue;
    names.push(word);
  }
  return names;
}

type Json = Record<string, unknown>;

/** Every PromQL query of a dashboard: panel targets (rows included) and query variables. */
export function dashboardQueries(dashboard: Json): { where: string; expr: string }[] {
  const queries: { where: string; expr: string }[] = [];
  const visit = (panels: Json[]) => {
    for (const panel of panels) {
      for (const target of (panel.targets as Json[] | undefined) ?? []) {
        if (typeof target.expr === 'string')
          queries.push({ where: `panel "${panel.title}"`, expr: target.expr });
      }
      visit((panel.panels as Json[] | undefined) ?? []);
    }
  };
  visit((dashboard.panels as Json[] | undefined) ?? []);
  for (const variable of ((dashboard.templating as Json | undefined)?.list as Json[] | undefined) ?? []) {
    const query = variable.query;
    const text =
      typeof query === 'string' ? query : ((query as Json | undefined)?.query as string | undefined);
    if (variable.type !== 'query' || !text) continue;
    // label_values(metric, label) and friends: the metric is the selector inside.
    const inner = /^\w+\((.*?)(?:,\s*\w+)?\)$/.exec(text.trim())?.[1] ?? text;
    queries.push({ where: `variable $${variable.name}`, expr: inner });
  }
  return queries;
}
