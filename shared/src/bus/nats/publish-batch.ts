/**
 * Sends the publishes of one event-loop turn together. nats.js writes its outbound buffer to the
 * socket in a microtask after the first publish into an empty buffer, so publishes made from
 * different I/O callbacks (one HTTP request each, one database reply each) go out one socket write
 * apiece. Queued here and sent from one setImmediate, the turn's publishes leave in one write: on
 * loopback each write also costs the receiving side's TCP work, and under load a gateway handles a
 * few requests per turn. The wait is the rest of the current turn, not a timer.
 */
export class PublishBatch {
  private queued: (() => void)[] = [];
  private scheduled = false;

  /** `send` must handle its own errors: it runs later, outside the caller's stack. */
  add(send: () => void): void {
    this.queued.push(send);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  /** Sends what is queued now (before the connection drains, which refuses new publishes). */
  readonly flush = (): void => {
    this.scheduled = false;
    const queued = this.queued;
    this.queued = [];
    for (const send of queued) send();
  };
}
