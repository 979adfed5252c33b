import { LATENCY_BUCKETS, type Logger, type Metrics, type Sql, withDeadline } from '@voice/shared';
import type { AttemptOutcome } from '../domain/policy';
import { ADDRESS_NOT_ALLOWED_ERROR } from './sender';

/** How one attempt ended, as a bounded label. */
export type AttemptResult =
  | 'succeeded'
  | 'http_3xx'
  | 'http_4xx'
  | 'http_5xx'
  | 'http_other'
  | 'timeout'
  | 'connection_error'
  | 'address_not_allowed'
  | 'invalid_url';

export function attemptResult(outcome: AttemptOutcome): AttemptResult {
  if (outcome.ok) return 'succeeded';
  const status = outcome.statusCode;
  if (status !== null) {
    if (status >= 500 && status < 600) return 'http_5xx';
    if (status >= 400 && status < 500) return 'http_4xx';
    if (status >= 300 && status < 400) return 'http_3xx';
    return 'http_other';
  }
  const error = outcome.error ?? '';
  if (error.startsWith('timeout')) return 'timeout';
  if (error === ADDRESS_NOT_ALLOWED_ERROR) return 'address_not_allowed';
  if (error === 'invalid url' || error === 'unsupported scheme') return 'invalid_url';
  return 'connection_error';
}

export interface WebhookMetrics {
  /** One send, whatever its outcome, and how long it took. */
  attempted(outcome: AttemptOutcome, durationMs: number): void;
  /** The delivery's status once the attempt was recorded: succeeded and failed are final outcomes. */
  finished(status: string): void;
}

/** A scrape waits at most this long for the database; then the gauge reads NaN (unknown). */
export const ENDPOINTS_QUERY_DEADLINE_MS = 1000;
/** An endpoint with no failure for this long is no longer counted (its agent may be gone). */
export const FAILING_ENDPOINT_WINDOW_HOURS = 24;

/** The `target` label of webhook_endpoints_failing: an agent's webhook_config or an account endpoint. */
export type FailingTarget = 'agent_webhook' | 'account_endpoint';

/**
 * Attempts and final outcomes are per webhook service instance: a sum over instances is the
 * platform's. `webhook_endpoints_failing` is the platform's, read from the database at scrape
 * (every replica reports the same: aggregate with max); concurrent scrapes share one query.
 * One series per target kind, so an alert on the metric name covers both and a dashboard can
 * tell them apart; a disabled account endpoint is not counted (nothing is sent to it).
 */
export function webhookMetrics(metrics: Metrics, sql: Sql, log: Logger): WebhookMetrics {
  let reading: Promise<Record<FailingTarget, number>> | undefined;
  const unknown = { agent_webhook: Number.NaN, account_endpoint: Number.NaN };
  const failingEndpoints = () => {
    reading ??= withDeadline(
      sql<{ agents: number; endpoints: number }[]>`
        SELECT
          (SELECT count(*)::int FROM webhook.failing_endpoints
            WHERE last_failed_at > now() - ${FAILING_ENDPOINT_WINDOW_HOURS} * interval '1 hour') AS agents,
          (SELECT count(*)::int FROM webhook.failing_account_endpoints f
             JOIN webhook.endpoints e ON e.id = f.endpoint_id AND e.enabled
            WHERE f.last_failed_at > now() - ${FAILING_ENDPOINT_WINDOW_HOURS} * interval '1 hour') AS endpoints`,
      ENDPOINTS_QUERY_DEADLINE_MS,
      'webhook metrics query',
    )
      .then(
        ([row]) => ({ agent_webhook: row?.agents ?? 0, account_endpoint: row?.endpoints ?? 0 }),
        (error: unknown) => {
          log.warn({ err: error }, 'webhook metrics: the database did not answer; the gauge reads NaN');
          return unknown;
        },
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  metrics.gauge(
    'webhook_endpoints_failing',
    'Webhook endpoints whose latest delivery failed after every attempt (none since succeeded), counting ' +
      `failures of the last ${FAILING_ENDPOINT_WINDOW_HOURS} h, by target: agent_webhook (an agent's ` +
      'webhook_config) or account_endpoint (an enabled /v1/webhook-endpoints endpoint); read from the database at scrape',
    ['target'],
    async (g) => {
      const counts = await failingEndpoints();
      for (const target of ['agent_webhook', 'account_endpoint'] as const) g.set({ target }, counts[target]);
    },
  );
  const attempts = metrics.counter(
    'webhook_attempts_total',
    'Webhook sends by result: succeeded, http_3xx, http_4xx, http_5xx, http_other, timeout, ' +
      'connection_error, address_not_allowed, invalid_url',
    ['result'],
  );
  const duration = metrics.histogram(
    'webhook_attempt_duration_seconds',
    'Time of one webhook send, connect to the last byte read, by result',
    ['result'],
    LATENCY_BUCKETS,
  );
  const finished = metrics.counter(
    'webhook_deliveries_finished_total',
    'Deliveries that reached a final status here: succeeded, or failed after the last attempt',
    ['status'],
  );
  return {
    attempted(outcome, durationMs) {
      const result = attemptResult(outcome);
      attempts.inc({ result });
      duration.observe({ result }, durationMs / 1000);
    },
    finished(status) {
      if (status === 'succeeded' || status === 'failed') finished.inc({ status });
    },
  };
}
