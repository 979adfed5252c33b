import { Metrics } from '@voice/shared';

/**
 * The service's own metrics, with every histogram observation also kept as a raw value: the
 * conversation engine reports turn latency, recognition and first-audio times through
 * ConversationMetrics into these histograms, and percentiles need the values, not the buckets.
 * Nothing in the service changes: it is handed this registry as `deps.metrics`.
 */
export class RawMetrics extends Metrics {
  readonly #raw = new Map<string, number[]>();
  readonly #wrapped = new WeakSet<object>();

  override histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets?: number[],
  ) {
    const histogram = super.histogram<L>(name, help, labelNames, buckets);
    if (!this.#wrapped.has(histogram)) {
      this.#wrapped.add(histogram);
      const observe = histogram.observe.bind(histogram) as (...args: unknown[]) => void;
      histogram.observe = ((...args: unknown[]) => {
        // observe(value) or observe(labels, value): every label of these histograms has one value here.
        const value = typeof args[0] === 'number' ? args[0] : args[1];
        if (typeof value === 'number') this.#keep(name, value);
        observe(...args);
      }) as typeof histogram.observe;
    }
    return histogram;
  }

  /** The values observed since the last take, by histogram name (seconds, as observed), and forgets them. */
  take(): Record<string, number[]> {
    const out = Object.fromEntries(this.#raw);
    this.#raw.clear();
    return out;
  }

  /** A counter's total over its labels (0 when it was never defined). */
  async counterTotal(name: string): Promise<number> {
    const metric = this.registry.getSingleMetric(name);
    if (!metric) return 0;
    const { values } = await metric.get();
    return values.reduce((sum, v) => sum + v.value, 0);
  }

  #keep(name: string, value: number): void {
    const list = this.#raw.get(name) ?? [];
    // Bounded: a bench run observes a few thousand values at most.
    if (list.length < 100_000) list.push(value);
    this.#raw.set(name, list);
  }
}
