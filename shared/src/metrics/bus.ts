import { BusNoRespondersError, BusRemoteError, BusTimeoutError } from '../bus/errors';
import type { Bus } from '../bus/types';
import { BUS_LATENCY_BUCKETS, type Metrics } from './metrics';

/** How a bus request ended, as the asker saw it. */
export type BusRequestOutcome = 'ok' | 'error' | 'timeout' | 'no_responders' | 'failed';

export function busRequestOutcome(error: unknown): BusRequestOutcome {
  if (error instanceof BusTimeoutError) return 'timeout';
  if (error instanceof BusNoRespondersError) return 'no_responders';
  // The responder answered, with a catalogue error (not found, validation, conflict, ...).
  if (error instanceof BusRemoteError) return 'error';
  return 'failed';
}

/**
 * The same bus, timing every request/reply on both sides into `metrics`:
 * `bus_request_duration_seconds{subject,outcome}` for requests this process sent (the round trip
 * callRpc waits for) and `bus_handler_duration_seconds{subject,outcome}` for the ones it answered;
 * and counting durable events handled, `bus_durable_messages_total{durable,outcome}`.
 * Subjects are the contracts' fixed names (`call.create`), never prefixed and never holding ids,
 * so the label is bounded by the contract list.
 */
export function instrumentBus(bus: Bus, metrics: Metrics): Bus {
  const sent = metrics.histogram(
    'bus_request_duration_seconds',
    'Bus requests this process sent, until the reply or the failure, by subject and outcome ' +
      '(ok, error = the service answered with an error, timeout, no_responders, failed)',
    ['subject', 'outcome'],
    BUS_LATENCY_BUCKETS,
  );
  const handled = metrics.histogram(
    'bus_handler_duration_seconds',
    'Bus requests this process answered, by subject and outcome (ok, error)',
    ['subject', 'outcome'],
    BUS_LATENCY_BUCKETS,
  );
  const consumed = metrics.counter(
    'bus_durable_messages_total',
    'Durable events this process handled, by consumer and outcome (acked, or retried later)',
    ['durable', 'outcome'],
  );
  const instrumented: Bus = {
    kind: bus.kind,
    async request(subject, data, options) {
      const end = sent.startTimer({ subject });
      try {
        const reply = await bus.request(subject, data, options);
        end({ outcome: 'ok' });
        return reply;
      } catch (error) {
        end({ outcome: busRequestOutcome(error) });
        throw error;
      }
    },
    respond(subject, responder, options) {
      return bus.respond(
        subject,
        async (msg) => {
          const end = handled.startTimer({ subject });
          try {
            const reply = await responder(msg);
            end({ outcome: 'ok' });
            return reply;
          } catch (error) {
            end({ outcome: 'error' });
            throw error;
          }
        },
        options,
      );
    },
    publish: (subject, data, headers) => bus.publish(subject, data, headers),
    subscribe: (subject, listener, options) => bus.subscribe(subject, listener, options),
    ensureStream: (stream) => bus.ensureStream(stream),
    publishDurable: (subject, data, options) => bus.publishDurable(subject, data, options),
    consume: (options) =>
      bus.consume({
        ...options,
        handler: async (msg) => {
          try {
            await options.handler(msg);
            consumed.inc({ durable: options.durable, outcome: 'acked' });
          } catch (error) {
            consumed.inc({ durable: options.durable, outcome: 'retried' });
            throw error;
          }
        },
      }),
    close: () => bus.close(),
  };
  if (bus.status) instrumented.status = () => bus.status!();
  return instrumented;
}
