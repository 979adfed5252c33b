import type { SipTransport } from '@voice/shared/contracts';
import type { SipMessage, SipRequest, SipResponse } from './message';
import type { SipLogger, SipTimers } from './options';
import type { LocalAddress } from './requests';
import type { ClientTransaction, TransactionUser } from './transaction';
import type { Peer } from './transport';

/** What a call leg needs from its user agent: sending, transactions, name resolution. */
export interface LegContext {
  readonly local: LocalAddress;
  readonly timers: SipTimers;
  readonly logger: SipLogger;
  readonly userAgent: string;
  send(message: SipMessage, peer: Peer): void;
  /** Answers a request and remembers the answer for its retransmissions. */
  respond(request: SipRequest, response: SipResponse, peer: Peer): void;
  startTransaction(request: SipRequest, peer: Peer, user: TransactionUser): ClientTransaction;
  /** The peer for a SIP URI (its host resolved to an address). */
  resolve(uri: string, transport: SipTransport): Promise<Peer>;
  /** The leg has ended and lingered; forget it. */
  release(callId: string): void;
}
