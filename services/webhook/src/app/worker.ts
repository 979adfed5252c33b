import { type Logger, PollWorker, type Sql, WEBHOOK_HEADERS } from '@voice/shared';
import { type ClaimedDelivery, deliveryRepository, type EndpointState } from '../db/deliveries';
import { type AttemptOutcome, decideAfterAttempt } from '../domain/policy';
import { signatureHeaders } from '../domain/signature';
import type { WebhookMetrics } from './metrics';
import type { WebhookSender } from './sender';

export interface DeliveryWorkerOptions {
  sql: Sql;
  log: Logger;
  sender: WebhookSender;
  /** WEBHOOK_RETRY_BASE_MS. */
  retryBaseMs: number;
  /** Per-attempt timeout of the sender: the lease outlives it. */
  attemptTimeoutMs: number;
  /** Sends in flight at once, in all. */
  maxConcurrent?: number;
  /** Sends in flight at once to one host: a slow receiver holds only these. */
  maxPerHost?: number;
  pollIntervalMs?: number;
  metrics?: WebhookMetrics | undefined;
}

/** Deliveries failed in a row after which the endpoint itself is reported as failing (once). */
export const ENDPOINT_FAILING_AFTER = 3;
const DEFAULT_POLL_INTERVAL_MS = 100;

/** The host (and port) alone: never a path or query string, which may carry a receiver's token. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid-url';
  }
}

/**
 * Sends due deliveries from the webhook schema: claims them with a lease, sends each with bounded
 * concurrency (total and per host), logs every attempt and schedules the retry in the row — never
 * sleeping on it — so a restart or another replica picks up where this one stopped.
 */
export class DeliveryWorker extends PollWorker {
  private readonly perHost = new Map<string, number>();
  private readonly maxConcurrent: number;
  private readonly maxPerHost: number;
  private readonly pollIntervalMs: number;

  constructor(private readonly options: DeliveryWorkerOptions) {
    super({
      intervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      onError: (error) => options.log.error({ err: error }, 'webhook delivery poll failed'),
    });
    this.maxConcurrent = options.maxConcurrent ?? 32;
    this.maxPerHost = options.maxPerHost ?? 4;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  }

  protected async round(): Promise<void> {
    const free = this.maxConcurrent - this.inBackground;
    const leaseMs = this.options.attemptTimeoutMs + 30_000;
    const claimed = await deliveryRepository.claimDue(this.options.sql, free, leaseMs);
    for (const delivery of claimed) {
      const host = hostOf(delivery.url);
      const busy = this.perHost.get(host) ?? 0;
      if (this.loop.isStopped || busy >= this.maxPerHost) {
        // Another delivery to the same host is still out: try this one a little later.
        await deliveryRepository.release(this.options.sql, delivery.id, this.pollIntervalMs * 2);
        continue;
      }
      this.perHost.set(host, busy + 1);
      this.track(
        this.attempt(delivery)
          .catch((error: unknown) =>
            this.options.log.error({ err: error, delivery_id: delivery.id }, 'webhook attempt not recorded'),
          )
          .finally(() => {
            const left = (this.perHost.get(host) ?? 1) - 1;
            if (left <= 0) this.perHost.delete(host);
            else this.perHost.set(host, left);
          }),
      );
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const attempt = delivery.attempt_count + 1;
    const body = Buffer.from(delivery.body, 'utf8');
    const startedAt = new Date();
    const outcome = await this.options.sender.send({
      url: delivery.url,
      body,
      headers: {
        'Content-Type': 'application/json',
        [WEBHOOK_HEADERS.event]: delivery.event,
        [WEBHOOK_HEADERS.eventId]: delivery.event_id,
        [WEBHOOK_HEADERS.deliveryId]: delivery.id,
        ...signatureHeaders(delivery.secrets, body, startedAt.getTime()),
      },
    });
    const durationMs = Date.now() - startedAt.getTime();
    this.options.metrics?.attempted(outcome, durationMs);
    const decision = decideAfterAttempt(attempt, outcome, this.options.retryBaseMs);
    const recorded = await deliveryRepository.recordAttempt(
      this.options.sql,
      delivery,
      {
        attempt,
        startedAt,
        durationMs,
        statusCode: outcome.statusCode,
        error: outcome.ok ? null : outcome.error,
        succeeded: outcome.ok,
      },
      decision.outcome === 'retry'
        ? { status: 'pending', nextAttemptInMs: decision.delayMs }
        : { status: decision.outcome },
    );
    // The stored status, not the decision: a delivery cancelled during its attempt is not a failure.
    if (recorded) this.options.metrics?.finished(recorded.status);
    if (recorded?.status === 'failed') this.logFailed(delivery, attempt, outcome);
    if (recorded?.endpoint) this.logEndpoint(delivery, recorded.endpoint);
  }

  /** What an operator needs to find the failing endpoint: ids and host, never the secret or URL. */
  private logFailed(delivery: ClaimedDelivery, attempts: number, outcome: AttemptOutcome): void {
    this.options.log.warn(
      {
        account_id: delivery.account_id,
        agent_id: delivery.agent_id,
        endpoint_id: delivery.endpoint_id,
        delivery_id: delivery.id,
        event_id: delivery.event_id,
        host: hostOf(delivery.url),
        attempts,
        status_code: outcome.statusCode,
        last_error: outcome.ok ? null : outcome.error,
      },
      'webhook delivery failed after its last attempt',
    );
  }

  private logEndpoint(delivery: ClaimedDelivery, endpoint: EndpointState): void {
    const fields = {
      account_id: delivery.account_id,
      agent_id: delivery.agent_id,
      endpoint_id: delivery.endpoint_id,
      host: hostOf(delivery.url),
      failed_deliveries: endpoint.failed_deliveries,
      failing_since: new Date(endpoint.failing_since).toISOString(),
    };
    if (endpoint.state === 'recovered')
      this.options.log.info(
        fields,
        'webhook endpoint recovered: the failed deliveries since failing_since can be redelivered in bulk',
      );
    else if (endpoint.failed_deliveries === ENDPOINT_FAILING_AFTER)
      this.options.log.warn(fields, 'webhook endpoint failing: its deliveries fail in a row');
  }
}
