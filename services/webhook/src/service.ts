import {
  AGENT,
  AgentCopies,
  callRpc,
  defineService,
  type ServiceDeps,
  type ServiceHandle,
  serveHealth,
} from '@voice/shared';
import { consumeWebhookCallEnded } from './app/call-ended-consumer';
import { DeliveryLog } from './app/delivery-log';
import { consumeEndpointEvents } from './app/endpoint-events';
import { Endpoints } from './app/endpoints';
import { webhookMetrics } from './app/metrics';
import { DEFAULT_ATTEMPT_TIMEOUT_MS, WebhookSender } from './app/sender';
import { DeliveryWorker } from './app/worker';
import { serveDeliveryLog } from './handlers/deliveries';
import { serveEndpoints } from './handlers/endpoints';

export interface WebhookServiceOptions {
  /** Time allowed for one attempt (spec: 10 s); tests shorten it. */
  attemptTimeoutMs?: number;
  /** How often the worker looks for due deliveries. */
  pollIntervalMs?: number;
}

/**
 * The webhook service: stores a delivery per CALL_ENDED for the agent's webhook and one per event
 * for each subscribed account endpoint, and sends them, signed, with retries. The
 * options shorten its timings (tests); production uses the defaults.
 */
export function createWebhookService(deps: ServiceDeps, options: WebhookServiceOptions = {}): ServiceHandle {
  const { config } = deps;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const sender = new WebhookSender({
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE ?? false,
    timeoutMs: attemptTimeoutMs,
  });
  let worker: DeliveryWorker | undefined;
  const metrics = deps.metrics && webhookMetrics(deps.metrics, deps.sql, deps.log);
  const links = () => {
    const recordingSecret = config.RECORDING_URL_SECRET;
    if (!recordingSecret) throw new Error('webhook service: RECORDING_URL_SECRET was not resolved');
    return {
      baseUrl: config.PUBLIC_BASE_URL ?? `http://${config.HOST}:${config.PORT}`,
      recordingSecret,
    };
  };
  const onStored = () => worker?.wake();
  const deliveryLog = new DeliveryLog({ bus: deps.bus, sql: deps.sql, links, onStored });
  const endpoints = new Endpoints({
    sql: deps.sql,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE ?? false,
    links,
    onStored,
  });
  const targets = new AgentCopies(deps.bus, deps.log, (ctx, agentId) =>
    callRpc(deps.bus, AGENT.webhookTarget, { agent_id: agentId }, ctx),
  );
  return defineService({
    name: 'webhook',
    subscriptions: [
      serveHealth(deps, 'webhook'),
      targets.listen(),
      consumeWebhookCallEnded({ bus: deps.bus, targets, sql: deps.sql, log: deps.log, links, onStored }),
      ...serveDeliveryLog(deps, deliveryLog),
      ...serveEndpoints(deps, endpoints),
      ...consumeEndpointEvents({ bus: deps.bus, sql: deps.sql, log: deps.log, links, onStored }),
    ],
    background: [
      async () => {
        const running = new DeliveryWorker({
          sql: deps.sql,
          log: deps.log,
          sender,
          retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
          attemptTimeoutMs,
          metrics,
          ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
        });
        running.start();
        worker = running;
        return {
          stop: async () => {
            worker = undefined;
            await running.stop();
          },
        };
      },
    ],
  });
}
