export interface Endpoint {
  address: string;
  port: number;
}

/**
 * Where to send to one far end (RTP or RTCP), by symmetric RTP: the address from the SDP until the
 * first valid datagram arrives, then that datagram's source, which a NAT may have rewritten. Once
 * latched, datagrams from any other source are refused, so a stranger cannot inject media.
 */
export class SymmetricPeer {
  #target: Endpoint | undefined;
  #latched = false;

  get target(): Endpoint | undefined {
    return this.#target;
  }

  /** What the SDP says; ignored once real traffic has told us better. */
  announce(endpoint: Endpoint): void {
    if (!this.#latched) this.#target = endpoint;
  }

  accepts(from: Endpoint): boolean {
    return !this.#latched || (this.#target?.address === from.address && this.#target.port === from.port);
  }

  /** Call for a datagram that proved valid. */
  latch(from: Endpoint): void {
    if (this.#latched) return;
    this.#latched = true;
    this.#target = { address: from.address, port: from.port };
  }
}
