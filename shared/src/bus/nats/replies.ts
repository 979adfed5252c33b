import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { BusNoRespondersError, BusTimeoutError } from '../errors';
import type { PublishBatch } from './publish-batch';

interface Pending {
  subject: string;
  resolve: (msg: Msg) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * Request/reply over one wildcard inbox subscription per connection, as nats.js's own request
 * does, without what that costs on every call: nats.js 3.4 builds an Error (with its stack trace)
 * on every successful request (RequestOne.cancel) and two more up front unless noAsyncTraces. That
 * was a few percent of the gateway's CPU per request (BENCHMARKS.md). "No responders" arrives as
 * the server's 503 status message on the reply subject, as it does for nats.js.
 */
export class Replies {
  private prefix: string | undefined;
  private readonly pending = new Map<string, Pending>();
  private next = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly batch: PublishBatch,
  ) {}

  /** `subject` names the request in errors; `wireSubject` is where it is published. */
  request(
    subject: string,
    wireSubject: string,
    payload: string,
    headers: MsgHdrs | undefined,
    timeoutMs: number,
  ): Promise<Msg> {
    const prefix = this.inbox();
    const token = (this.next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(new BusTimeoutError(subject));
      }, timeoutMs);
      this.pending.set(token, { subject, resolve, reject, timer });
      this.batch.add(() => {
        try {
          this.nc.publish(wireSubject, payload, { reply: prefix + token, ...(headers ? { headers } : {}) });
        } catch (error) {
          clearTimeout(timer);
          this.pending.delete(token);
          reject(error);
        }
      });
    });
  }

  /** Fails every request still waiting: the connection is closing. */
  close(): void {
    for (const entry of this.pending.values()) {
      clearTimeout(entry.timer);
      entry.reject(new BusNoRespondersError(entry.subject));
    }
    this.pending.clear();
  }

  private inbox(): string {
    if (this.prefix) return this.prefix;
    const inbox = createInbox();
    this.prefix = `${inbox}.`;
    this.nc.subscribe(`${inbox}.*`, {
      callback: (error, msg) => {
        if (!error) this.settle(msg);
      },
    });
    return this.prefix;
  }

  private settle(msg: Msg): void {
    const token = msg.subject.slice(this.prefix!.length);
    const entry = this.pending.get(token);
    if (!entry) return; // timed out already
    this.pending.delete(token);
    clearTimeout(entry.timer);
    if (msg.headers?.hasError && msg.headers.code === 503)
      entry.reject(new BusNoRespondersError(entry.subject));
    else entry.resolve(msg);
  }
}
