import { parseVia } from './fields';
import { header, type SipRequest, type SipResponse } from './message';
import type { Peer } from './transport';

// The server side of our transactions, reduced to what a UAC needs: a retransmitted request (same
// branch, method and CSeq) gets the response we already sent, and is not acted on twice.

const MAX_ENTRIES = 1024;

export class ResponseCache {
  private readonly entries = new Map<string, { response: SipResponse; peer: Peer; at: number }>();

  constructor(private readonly keepMs: number) {}

  remember(request: SipRequest, response: SipResponse, peer: Peer): void {
    this.purge();
    this.entries.set(keyOf(request), { response, peer, at: Date.now() });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Sends the remembered response again; false when the request is new. */
  replay(request: SipRequest, send: (response: SipResponse, peer: Peer) => void): boolean {
    if (request.method === 'ACK') return false;
    const entry = this.entries.get(keyOf(request));
    if (!entry || Date.now() - entry.at > this.keepMs) return false;
    send(entry.response, entry.peer);
    return true;
  }

  clear(): void {
    this.entries.clear();
  }

  private purge(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      if (now - entry.at <= this.keepMs) break;
      this.entries.delete(key);
    }
  }
}

function keyOf(request: SipRequest): string {
  const branch = parseVia(header(request, 'via'))?.params.get('branch') ?? '';
  return [header(request, 'call-id'), branch, request.method, header(request, 'cseq')].join('|');
}
