import type { SipTransport } from '@voice/shared/contracts';
import type { LegContext } from './context';
import { parseCSeq, tagOf, uriOf } from './fields';
import { header, headerList, type SipHeader, type SipRequest, type SipResponse } from './message';
import { newBranch, viaValue } from './requests';
import type { Peer } from './transport';

// The dialog an answered INVITE creates (RFC 3261 12.1.2, 12.2.1.1): where in-dialog requests go
// (the remote target through the route set, loose routing) and how they are numbered.

export class Dialog {
  private localSeq: number;

  private constructor(
    readonly callId: string,
    private readonly from: string,
    private readonly to: string,
    readonly remoteTag: string | null,
    private readonly remoteTarget: string,
    private readonly routeSet: string[],
    readonly peer: Peer,
    private readonly transport: SipTransport,
    private readonly ctx: LegContext,
    inviteSeq: number,
  ) {
    this.localSeq = inviteSeq;
  }

  static async establish(
    ctx: LegContext,
    invite: SipRequest,
    answer: SipResponse,
    transport: SipTransport,
  ): Promise<Dialog> {
    const contact = headerList(answer, 'contact')[0];
    const remoteTarget = contact ? uriOf(contact) : invite.uri;
    const routeSet = headerList(answer, 'record-route').reverse();
    const first = routeSet[0];
    const peer = await ctx.resolve(first ? uriOf(first) : remoteTarget, transport);
    return new Dialog(
      header(invite, 'call-id') ?? '',
      header(invite, 'from') ?? '',
      header(answer, 'to') ?? '',
      tagOf(header(answer, 'to')),
      remoteTarget,
      routeSet,
      peer,
      transport,
      ctx,
      parseCSeq(header(invite, 'cseq'))?.seq ?? 1,
    );
  }

  /** Whether an incoming request belongs to this dialog (its From tag is the far end's tag). */
  matches(request: SipRequest): boolean {
    return this.remoteTag === null || tagOf(header(request, 'from')) === this.remoteTag;
  }

  /** The ACK for a 2xx, numbered like the INVITE it answers (13.2.2.4). */
  ack(inviteSeq: number): SipRequest {
    return this.build('ACK', inviteSeq, [], '');
  }

  /** A new in-dialog request with the next CSeq number. */
  request(method: string, headers: SipHeader[] = [], body = ''): SipRequest {
    this.localSeq += 1;
    return this.build(method, this.localSeq, headers, body);
  }

  /** A retry with credentials took the next CSeq number. */
  noteSeq(request: SipRequest): void {
    this.localSeq = Math.max(this.localSeq, parseCSeq(header(request, 'cseq'))?.seq ?? 0);
  }

  private build(method: string, seq: number, extra: SipHeader[], body: string): SipRequest {
    return {
      kind: 'request',
      method,
      uri: this.remoteTarget,
      headers: [
        { name: 'via', value: viaValue(this.ctx.local, this.transport, newBranch()) },
        { name: 'max-forwards', value: '70' },
        ...this.routeSet.map((value) => ({ name: 'route', value })),
        { name: 'from', value: this.from },
        { name: 'to', value: this.to },
        { name: 'call-id', value: this.callId },
        { name: 'cseq', value: `${seq} ${method}` },
        { name: 'user-agent', value: this.ctx.userAgent },
        ...extra,
      ],
      body,
    };
  }
}
