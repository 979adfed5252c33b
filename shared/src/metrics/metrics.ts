import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Latency buckets (seconds) for HTTP requests and webhook attempts: 5 ms .. 10 s. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Bus round trips are mostly sub-millisecond in process and a few ms over NATS: 0.5 ms .. 10 s. */
export const BUS_LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** The Prometheus text exposition format (0.0.4). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * The process metrics (CPU, memory, event loop lag, GC, handles) are process-wide: collected once
 * into this registry however many Metrics a process makes (tests start several platforms in one),
 * so no monitor or GC observer is added per platform.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export interface MetricsOptions {
  /** The `role` label on every sample: the platform role this process runs (`all`, `gateway`, `call`, ...). */
  role: string;
}

/**
 * One registry per platform (so one per process in production): the gateway's HTTP metrics, the
 * bus's, every service's own, and the process metrics, all exposed together with a `role` label.
 * Definitions are idempotent by name: asking twice for a counter returns the same counter.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly role: string;
  readonly contentType = METRICS_CONTENT_TYPE;

  constructor(options: MetricsOptions) {
    this.role = options.role;
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) return existing as Counter<L>;
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: number[] = LATENCY_BUCKETS,
  ): Histogram<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) return existing as Histogram<L>;
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /**
   * A gauge. With `collect`, its value is read at scrape time; a later definition with the same name
   * replaces the earlier one (a service built again reports its own state, not its predecessor's).
   */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (gauge: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing && !collect) return existing as Gauge<L>;
    if (existing) this.registry.removeSingleMetric(name);
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect
        ? {
            collect(this: Gauge<L>) {
              return collect(this);
            },
          }
        : {}),
    });
  }

  /** Everything, in the Prometheus text format, each sample labelled with this platform's role. */
  async exposition(): Promise<string> {
    const merged = Registry.merge([processMetrics(), this.registry]);
    merged.setDefaultLabels({ role: this.role });
    return merged.metrics();
  }
}
