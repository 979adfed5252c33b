import type { SipRequest, SipResponse } from './message';
import type { SipTimers } from './options';
import { ackForFailure } from './requests';
import type { Peer } from './transport';

// RFC 3261 client transactions (17.1): INVITE (timers A, B, D) and non-INVITE (timers E, F).
// Retransmissions only on UDP; TCP relies on the stream.

export interface TransactionUser {
  /** Every response the transaction passes up: provisionals, and the first final one. */
  onResponse(response: SipResponse): void;
  /** No final response in time (timer B or F). */
  onTimeout(): void;
  /** The connection to the far end broke (TCP). */
  onTransportError(error: Error): void;
}

type State = 'calling' | 'proceeding' | 'completed' | 'terminated';

export class ClientTransaction {
  private state: State = 'calling';
  private retransmit: NodeJS.Timeout | null = null;
  private timeout: NodeJS.Timeout | null = null;
  private linger: NodeJS.Timeout | null = null;
  private ack: SipRequest | null = null;

  constructor(
    readonly request: SipRequest,
    readonly peer: Peer,
    private readonly send: (request: SipRequest, peer: Peer) => void,
    private readonly timers: SipTimers,
    private readonly user: TransactionUser,
    /** Called once the transaction holds no more state; the owner forgets it. */
    private readonly onTerminated: () => void,
  ) {}

  get isInvite(): boolean {
    return this.request.method === 'INVITE';
  }

  start(): void {
    this.send(this.request, this.peer);
    if (this.peer.transport === 'udp') this.scheduleRetransmit(this.timers.t1Ms);
    this.timeout = setTimeout(() => this.expire(), this.timers.transactionTimeoutMs);
  }

  receive(response: SipResponse): void {
    if (this.state === 'terminated') return;
    if (this.state === 'completed') {
      // A retransmitted final response: our ACK was lost.
      if (this.ack) this.send(this.ack, this.peer);
      return;
    }
    if (response.status < 200) {
      if (this.state === 'calling') {
        this.state = 'proceeding';
        if (this.isInvite) this.stopTimers();
      }
      this.user.onResponse(response);
      return;
    }
    this.stopTimers();
    if (this.isInvite && response.status < 300) {
      // The dialog ACKs a 2xx (17.1.1.2); retransmitted 2xx go to it too.
      this.terminate();
      this.user.onResponse(response);
      return;
    }
    this.state = 'completed';
    if (this.isInvite) {
      this.ack = ackForFailure(this.request, response);
      this.send(this.ack, this.peer);
    }
    this.user.onResponse(response);
    const lingerMs =
      this.peer.transport === 'udp' ? (this.isInvite ? this.timers.timerDMs : this.timers.t2Ms) : 0;
    this.linger = setTimeout(() => this.terminate(), lingerMs);
  }

  transportError(error: Error): void {
    if (this.state === 'calling' || this.state === 'proceeding') {
      this.terminate();
      this.user.onTransportError(error);
    }
  }

  /** Stops a transaction still waiting for its final response; a completed one keeps absorbing. */
  abandon(): void {
    if (this.state === 'calling' || this.state === 'proceeding') this.terminate();
  }

  terminate(): void {
    if (this.state === 'terminated') return;
    this.state = 'terminated';
    this.stopTimers();
    if (this.linger) clearTimeout(this.linger);
    this.onTerminated();
  }

  private scheduleRetransmit(intervalMs: number): void {
    this.retransmit = setTimeout(() => {
      if (this.state !== 'calling' && !(this.state === 'proceeding' && !this.isInvite)) return;
      this.send(this.request, this.peer);
      const next = this.isInvite
        ? intervalMs * 2
        : this.state === 'proceeding'
          ? this.timers.t2Ms
          : Math.min(intervalMs * 2, this.timers.t2Ms);
      this.scheduleRetransmit(next);
    }, intervalMs);
  }

  private expire(): void {
    if (this.state !== 'calling' && this.state !== 'proceeding') return;
    this.terminate();
    this.user.onTimeout();
  }

  private stopTimers(): void {
    if (this.retransmit) clearTimeout(this.retransmit);
    if (this.timeout) clearTimeout(this.timeout);
    this.retransmit = null;
    this.timeout = null;
  }
}
