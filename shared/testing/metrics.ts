/** One sample of a Prometheus text exposition. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: MetricSample[];
  /** `# TYPE` of each family. */
  types: Map<string, string>;
  /** Sum of the samples named `name` whose labels include `labels` (0 when none). */
  sum(name: string, labels?: Record<string, string>): number;
  /** The samples named `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): MetricSample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/y;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (!match) throw new Error(`bad labels in exposition line: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

/** Parses the Prometheus text format (0.0.4) strictly enough to catch a malformed line. */
export function parseExposition(text: string): Exposition {
  const samples: MetricSample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      else if (!line.startsWith('# HELP ')) throw new Error(`bad comment in exposition: ${line}`);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`bad exposition line: ${line}`);
    const raw = match[3]!;
    // Prometheus reads values with Go's ParseFloat: NaN and Inf in any case (prom-client writes `Nan`).
    const lower = raw.toLowerCase();
    const value = lower === '+inf' ? Infinity : lower === '-inf' ? -Infinity : Number(raw);
    if (Number.isNaN(value) && lower !== 'nan') throw new Error(`bad value in exposition line: ${line}`);
    samples.push({ name: match[1]!, labels: match[2] ? parseLabels(match[2], line) : {}, value });
  }
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    samples,
    types,
    find,
    sum: (name, labels) => find(name, labels).reduce((total, s) => total + s.value, 0),
  };
}
