export { type BusRequestOutcome, busRequestOutcome, instrumentBus } from './bus';
export {
  BUS_LATENCY_BUCKETS,
  LATENCY_BUCKETS,
  METRICS_CONTENT_TYPE,
  Metrics,
  type MetricsOptions,
} from './metrics';
export { METRICS_PATH, type MetricsServer, startMetricsServer } from './server';
