import {
  ClosedConnectionError,
  DrainingConnectionError,
  NoRespondersError,
  RequestError,
  TimeoutError,
} from '@nats-io/transport-node';
import { BusNoRespondersError, BusTimeoutError } from '../errors';

/** Maps nats.js request failures onto the bus's typed errors; anything else passes through. */
export function mapNatsError(subject: string, error: unknown): unknown {
  const cause = error instanceof Error ? error.cause : undefined;
  if (error instanceof TimeoutError || cause instanceof TimeoutError) {
    return new BusTimeoutError(subject, { cause: error });
  }
  if (
    error instanceof NoRespondersError ||
    cause instanceof NoRespondersError ||
    (error instanceof RequestError && error.isNoResponders())
  ) {
    return new BusNoRespondersError(subject, { cause: error });
  }
  if (error instanceof ClosedConnectionError || error instanceof DrainingConnectionError) {
    return new BusNoRespondersError(subject, { cause: error });
  }
  return error;
}
