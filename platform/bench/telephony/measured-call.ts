import { type CallLeg, type RtpPortPool, RtpSession, type SipUserAgent } from '@voice/telephony-service';

export interface CallMeasurements {
  /** ms between consecutive sends inside the window. */
  intervals: number[];
  /** ms from each echoed packet's send to its echo's arrival. */
  echoRtts: number[];
  /** Packets sent inside the window, and how many of them came back. */
  sent: number;
  echoed: number;
  ticksSkipped: number;
}

/**
 * One real call as the telephony service places it (SIP INVITE with our SDP offer, RTP session on
 * a pool port pair, speech played in a loop), watched through the session's probe. Only what is
 * sent between openWindow() and closeWindow() is counted; a packet counts as echoed when its
 * sequence number comes back (sipp's -rtp_echo returns each datagram as it is).
 */
export class MeasuredCall {
  readonly #intervals: number[] = [];
  readonly #echoRtts: number[] = [];
  /** Send time by sequence number, for packets of the window not yet echoed. */
  readonly #awaiting = new Map<number, number>();
  #open = false;
  #lastSentAt: number | undefined;
  #sent = 0;
  #echoed = 0;
  #skippedAtOpen = 0;
  #skippedAtClose = 0;
  #speaking = true;
  #session!: RtpSession;
  #leg!: CallLeg;

  static async place(ua: SipUserAgent, pool: RtpPortPool, uri: string, speech: Int16Array) {
    const call = new MeasuredCall();
    const session = await RtpSession.open({
      pool,
      localAddress: '127.0.0.1',
      probe: { sent: (at, seq) => call.#onSent(at, seq), received: (at, seq) => call.#onEcho(at, seq) },
    });
    call.#session = session;
    try {
      call.#leg = ua.invite({
        trunk: { uri },
        from: '+15550001111',
        to: '+15550002222',
        sdpOffer: session.localDescription(),
        ringTimeoutMs: 30_000,
      });
      const answered = await call.#leg.waitFor('answered');
      if (!answered.remoteSdp) throw new Error('answered without SDP');
      session.setRemoteDescription(answered.remoteSdp);
      session.start();
      session.markAnswered();
      void call.#speak(speech);
      return call;
    } catch (error) {
      await session.close();
      throw error;
    }
  }

  openWindow(): void {
    this.#skippedAtOpen = this.#session.stats().ticksSkipped;
    this.#lastSentAt = undefined;
    this.#open = true;
  }

  closeWindow(): void {
    this.#open = false;
    this.#skippedAtClose = this.#session.stats().ticksSkipped;
  }

  async hangUp(): Promise<void> {
    this.#speaking = false;
    this.#session.stopPlayback();
    await this.#leg.hangUp();
  }

  async finish(): Promise<CallMeasurements> {
    await this.#session.close();
    return {
      intervals: this.#intervals,
      echoRtts: this.#echoRtts,
      sent: this.#sent,
      echoed: this.#echoed,
      ticksSkipped: this.#skippedAtClose - this.#skippedAtOpen,
    };
  }

  async #speak(speech: Int16Array): Promise<void> {
    while (this.#speaking && (await this.#session.play(speech))) {
      // the next round of the same clip
    }
  }

  #onSent(at: number, seq: number): void {
    if (!this.#open) return;
    if (this.#lastSentAt !== undefined) this.#intervals.push(at - this.#lastSentAt);
    this.#lastSentAt = at;
    this.#awaiting.set(seq, at);
    this.#sent++;
  }

  #onEcho(at: number, seq: number): void {
    const sentAt = this.#awaiting.get(seq);
    if (sentAt === undefined) return;
    this.#awaiting.delete(seq);
    this.#echoed++;
    this.#echoRtts.push(at - sentAt);
  }
}
