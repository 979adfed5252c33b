import { setTimeout as delay } from 'node:timers/promises';
import {
  AuthorizationError,
  connect,
  InvalidArgumentError,
  type NatsConnection,
  PermissionViolationError,
  UserAuthenticationExpiredError,
} from '@nats-io/transport-node';
import type { Logger } from '../../log';
import { BusNoRespondersError } from '../errors';
import type { BusStatus } from '../types';

export interface ConnectOptions {
  servers: string;
  name: string;
  log: Logger;
  /** Longest wait for the first connection, retries included. */
  timeoutMs: number;
  /** Aborts the wait (a shutdown signal during start-up). */
  signal?: AbortSignal | undefined;
}

const RETRY_EVERY_MS = 1_000;
const ATTEMPT_TIMEOUT_MS = 5_000;

/**
 * The first connection, retried until `timeoutMs`, so a NATS that is briefly unavailable at
 * start-up (a restart, containers starting together) does not kill the process, while a wrong
 * address still fails start-up, naming it, in bounded time. Refused credentials fail at once.
 *
 * Not nats.js `waitOnFirstConnect`: with it, connect() retries forever and the connection does
 * not exist until it succeeds, so there is nothing to close when the time is up or a signal
 * arrives. Each attempt here is one plain connect(); the connection it returns then reconnects
 * forever on its own (`maxReconnectAttempts: -1`).
 */
export async function connectWithRetry(options: ConnectOptions): Promise<NatsConnection> {
  const { servers, log, signal } = options;
  const deadline = Date.now() + options.timeoutMs;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const remaining = deadline - Date.now();
    let failure: unknown;
    let nc: NatsConnection | undefined;
    try {
      nc = await connect({
        servers,
        name: options.name,
        timeout: Math.max(250, Math.min(remaining, ATTEMPT_TIMEOUT_MS)),
        // Services must outlive any NATS outage; the default gives up after 10 attempts.
        maxReconnectAttempts: -1,
        reconnectTimeWait: RETRY_EVERY_MS,
        // Notice a dead server within about a minute rather than the default six.
        pingInterval: 20_000,
        maxPingOut: 3,
        // Otherwise every request builds two Error objects up front (stack traces for a failure
        // that rarely comes): measurable on the gateway's hot path (BENCHMARKS.md). Failures are
        // mapped and logged with the subject and request id, which is what identifies them.
        noAsyncTraces: true,
      });
    } catch (error) {
      failure = error;
    }
    if (nc) {
      // Connected just as start-up was abandoned: nobody will close it but us.
      if (signal?.aborted) await nc.close();
      signal?.throwIfAborted();
      return nc;
    }
    const reason = failure instanceof Error ? failure.message : String(failure);
    if (isPermanent(failure)) {
      throw new Error(`NATS at ${servers} refused the connection: ${reason}`, { cause: failure });
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new Error(
        `could not connect to NATS at ${servers} within ${options.timeoutMs} ms (${attempt} attempts): ${reason}`,
        { cause: failure },
      );
    }
    if (attempt === 1) log.warn({ servers, err: failure }, 'NATS not reachable yet; retrying');
    // The last attempt comes at the deadline itself.
    await delay(Math.min(RETRY_EVERY_MS, left), undefined, signal ? { signal } : undefined);
  }
}

function isPermanent(error: unknown): boolean {
  return (
    error instanceof AuthorizationError ||
    error instanceof UserAuthenticationExpiredError ||
    error instanceof PermissionViolationError ||
    error instanceof InvalidArgumentError
  );
}

/**
 * Follows the connection's status events: logs them, and knows whether the server is reachable
 * now, so requests fail fast during an outage instead of waiting out their timeout.
 */
export class ConnectionState {
  private connected = true;
  /** Counts lost connections: see Bus.connectionEpoch. */
  private lostCount = 0;
  /** Aborted when the connection drops; replaced on reconnect. */
  private lost = new AbortController();
  private readonly loop: Promise<void>;

  constructor(
    private readonly nc: NatsConnection,
    private readonly log: Logger,
  ) {
    this.loop = this.follow();
  }

  get isConnected(): boolean {
    return this.connected && !this.nc.isClosed();
  }

  get epoch(): number {
    return this.lostCount;
  }

  status(closing: boolean): BusStatus {
    if (closing || this.nc.isClosed()) return 'closed';
    return this.connected ? 'connected' : 'reconnecting';
  }

  /**
   * Settles as `work` does, unless the connection drops first: then rejects at once with
   * BusNoRespondersError (503). The reply to a request sent before an outage cannot arrive, and
   * the outbox re-publishes a durable event whose store was not confirmed (the msgId dedupes it).
   */
  failOnDisconnect<T>(work: Promise<T>, subject: string): Promise<T> {
    const signal = this.lost.signal;
    if (signal.aborted) {
      work.catch(() => {});
      return Promise.reject(this.unavailable(subject));
    }
    return new Promise<T>((resolve, reject) => {
      const onLost = () => reject(this.unavailable(subject));
      signal.addEventListener('abort', onLost, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onLost));
    });
  }

  /** Resolves once the connection closed and its status stream ended. */
  ended(): Promise<void> {
    return this.loop;
  }

  unavailable(subject: string): BusNoRespondersError {
    return new BusNoRespondersError(subject, { cause: new Error('NATS connection is down') });
  }

  private async follow(): Promise<void> {
    for await (const status of this.nc.status()) {
      switch (status.type) {
        case 'disconnect':
          this.connected = false;
          this.lostCount++;
          this.lost.abort();
          this.log.warn({ server: status.server }, 'NATS disconnected');
          break;
        case 'reconnect':
          this.connected = true;
          this.lost = new AbortController();
          this.log.info({ server: status.server }, 'NATS reconnected');
          break;
        case 'ldm':
          this.log.warn({ server: status.server }, 'NATS server entering lame duck mode');
          break;
        case 'staleConnection':
          this.log.warn('NATS connection stale');
          break;
        case 'slowConsumer':
          this.log.warn({ subject: status.sub.getSubject(), pending: status.pending }, 'NATS slow consumer');
          break;
        case 'error':
          this.log.error({ err: status.error }, 'NATS server error');
          break;
        default:
          break;
      }
    }
    this.connected = false;
    this.lost.abort();
  }
}
