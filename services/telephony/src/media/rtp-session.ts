import type { RemoteInfo } from 'node:dgram';
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { decodeG711, FRAME_MS, FRAME_SAMPLES, type G711Codec, STATIC_PAYLOAD_TYPES } from './codec';
import { DtmfDetector, isDtmfDigit } from './dtmf';
import type { JitterBufferOptions } from './jitter-buffer';
import { Pacer } from './pacer';
import { PlaybackQueue } from './playback-queue';
import { Playout } from './playout';
import type { RtpPortPair, RtpPortPool } from './port-pool';
import { ReceiverStats } from './receiver-stats';
import type { RtcpReport } from './rtcp';
import { RtcpReporter } from './rtcp-reporter';
import { parseRtp, serializeRtp } from './rtp-packet';
import { RtpSender } from './rtp-sender';
import { buildOffer, DEFAULT_TELEPHONE_EVENT_PT, type NegotiatedMedia, parseAnswer } from './sdp';
import { SymmetricPeer } from './symmetric-peer';
import { WavRecorder } from './wav-recorder';

export interface RtpSessionOptions {
  pool: RtpPortPool;
  /** The address the pool binds to, advertised unless `publicAddress` is set. */
  localAddress: string;
  /** SIP_PUBLIC_ADDRESS: what the far end must send to when we sit behind NAT. */
  publicAddress?: string;
  codecs?: readonly G711Codec[];
  /** No RTP for this long after `markAnswered()` emits `media-timeout`. Default 30 s. */
  mediaTimeoutMs?: number;
  /** Mean RTCP report interval. Default 5 s. */
  rtcpIntervalMs?: number;
  jitter?: JitterBufferOptions;
  /** Where to write the stereo WAV (agent left, callee right); no recording when absent. */
  recordingPath?: string;
  cname?: string;
  /** Measurement hook (the bench): told of every RTP packet sent and accepted. Off by default. */
  probe?: RtpProbe;
}

/**
 * Sees each RTP packet as it is sent (after the socket send is issued) and as it is accepted, with
 * its sequence number and the monotonic time (`performance.now()`, read only when a probe is set).
 */
export interface RtpProbe {
  sent(atMs: number, sequenceNumber: number): void;
  received(atMs: number, sequenceNumber: number): void;
}

export interface RtpSessionEvents {
  /** Each 20 ms of what the far end said (silence when it said nothing), in step with our clock. */
  audio: [pcm: Int16Array];
  dtmf: [digit: string];
  /** The first packet of speech after silence went out (`performance.now()`): the agent is heard from here. */
  talkspurt: [atMs: number];
  rtcp: [report: RtcpReport];
  'media-timeout': [];
}

export interface RtpSessionStats {
  packetsSent: number;
  octetsSent: number;
  packetsReceived: number;
  /** Datagrams refused: malformed, unexpected payload type or size, or from a stranger. */
  packetsIgnored: number;
  late: number;
  duplicate: number;
  lost: number;
  jitterMs: number;
  roundTripMs?: number;
  rtcpReportsSent: number;
  /** 20 ms slots lost to event-loop stalls (nothing was sent for them). */
  ticksSkipped: number;
  lastRemoteReport?: RtcpReport;
}

/**
 * The media of one call: a UDP socket pair from the pool, our 20 ms stream out, the far end's
 * stream in through a jitter buffer, RTCP both ways, RFC 4733 DTMF and the call recording.
 * Sockets are open to the internet: every datagram is validated before it is used.
 */
export class RtpSession extends EventEmitter<RtpSessionEvents> {
  readonly #sender = new RtpSender();
  readonly #receiver = new ReceiverStats();
  readonly #playback = new PlaybackQueue();
  readonly #playout: Playout;
  readonly #pacer: Pacer;
  readonly #rtcp: RtcpReporter;
  #negotiated: NegotiatedMedia | undefined;
  readonly #rtpPeer = new SymmetricPeer();
  readonly #rtcpPeer = new SymmetricPeer();
  readonly #dtmf = new DtmfDetector();
  #accepted = new Set<number>([...Object.values(STATIC_PAYLOAD_TYPES), DEFAULT_TELEPHONE_EVENT_PT]);
  #answeredAt: number | undefined;
  #lastRtpAt: number | undefined;
  #timedOut = false;
  #ignored = 0;
  #ticksSkipped = 0;
  #closed: Promise<void> | undefined;

  private constructor(
    private readonly ports: RtpPortPair,
    private readonly options: RtpSessionOptions,
    private readonly recorder: WavRecorder | undefined,
  ) {
    super();
    this.#playout = new Playout(options.jitter);
    this.#pacer = new Pacer(
      FRAME_MS,
      (now) => this.#tick(now),
      (skipped) => this.#skip(skipped),
    );
    const cname = options.cname ?? `voice@${options.publicAddress ?? options.localAddress}`;
    this.#rtcp = new RtcpReporter(
      this.#sender,
      this.#receiver,
      cname,
      (d) => this.#sendTo(this.ports.rtcp, this.#rtcpPeer, d),
      options.rtcpIntervalMs ?? 5000,
    );
    ports.rtp.on('message', (msg, from) => this.#onRtp(msg, from));
    ports.rtcp.on('message', (msg, from) => this.#onRtcp(msg, from));
    // A send to an unreachable port surfaces as a socket error on some systems: not fatal to a call.
    ports.rtp.on('error', () => {});
    ports.rtcp.on('error', () => {});
  }

  /** Takes a port pair from the pool (PortPoolExhaustedError when none is free). */
  static async open(options: RtpSessionOptions): Promise<RtpSession> {
    const ports = await options.pool.acquire();
    try {
      const recorder = options.recordingPath ? await WavRecorder.create(options.recordingPath) : undefined;
      return new RtpSession(ports, options, recorder);
    } catch (err) {
      ports.release();
      throw err;
    }
  }

  get rtpPort(): number {
    return this.ports.rtpPort;
  }

  get negotiated(): NegotiatedMedia | undefined {
    return this.#negotiated;
  }

  /** Our SDP offer for the INVITE. */
  localDescription(): string {
    return buildOffer({
      address: this.options.localAddress,
      port: this.ports.rtpPort,
      ...(this.options.publicAddress ? { publicAddress: this.options.publicAddress } : {}),
      ...(this.options.codecs ? { codecs: this.options.codecs } : {}),
    });
  }

  /** Applies the far end's SDP (183 or 200); throws SdpAnswerError when it has no usable audio. */
  setRemoteDescription(sdp: string): NegotiatedMedia {
    const media = parseAnswer(sdp, this.options.codecs ?? ['PCMU', 'PCMA']);
    this.#negotiated = media;
    this.#sender.configure(media.codec, media.payloadType, media.telephoneEventPayloadType);
    this.#accepted = new Set([
      media.payloadType,
      media.telephoneEventPayloadType ?? DEFAULT_TELEPHONE_EVENT_PT,
    ]);
    this.#rtpPeer.announce({ address: media.remoteAddress, port: media.remotePort });
    this.#rtcpPeer.announce({ address: media.remoteAddress, port: media.remoteRtcpPort });
    return media;
  }

  /** Starts the 20 ms clock: sending, playout, recording and RTCP. Idempotent. */
  start(): void {
    if (!this.#negotiated) throw new Error('start() needs the remote description first');
    if (this.#closed) return;
    this.#pacer.start();
    this.#rtcp.start();
  }

  /** The call is answered: from now on, `mediaTimeoutMs` without RTP emits `media-timeout`. */
  markAnswered(): void {
    this.#answeredAt ??= performance.now();
  }

  /** Speaks 8 kHz PCM into the call after what is already queued; true once sent in full. */
  play(pcm: Int16Array): Promise<boolean> {
    return this.#playback.enqueue(pcm);
  }

  /** Stops speaking at once (barge-in). */
  stopPlayback(): void {
    this.#playback.clear();
  }

  get speaking(): boolean {
    return this.#playback.playing;
  }

  /** Sends digits as RFC 4733 events; resolves when the last one has been sent. */
  async sendDtmf(digits: string, options: { durationMs?: number; gapMs?: number } = {}): Promise<void> {
    if (![...digits].every(isDtmfDigit)) throw new RangeError(`not DTMF digits: ${JSON.stringify(digits)}`);
    if (!this.#sender.dtmfAvailable) throw new Error('the far end did not accept telephone-event');
    const jobs = [...digits].map((d) =>
      this.#sender.queueDigit(d, options.durationMs ?? 100, options.gapMs ?? 60),
    );
    await Promise.all(jobs);
  }

  stats(): RtpSessionStats {
    const c = this.#playout.jitter.counters;
    const remote = this.#rtcp.lastRemoteReport;
    return {
      packetsSent: this.#sender.packetsSent,
      octetsSent: this.#sender.octetsSent,
      packetsReceived: this.#receiver.received,
      packetsIgnored: this.#ignored,
      late: c.late,
      duplicate: c.duplicate,
      lost: c.lost,
      jitterMs: this.#receiver.jitterSamples / 8,
      ...(this.#rtcp.roundTripMs !== undefined ? { roundTripMs: this.#rtcp.roundTripMs } : {}),
      rtcpReportsSent: this.#rtcp.reportsSent,
      ticksSkipped: this.#ticksSkipped,
      ...(remote ? { lastRemoteReport: remote } : {}),
    };
  }

  /** Stops everything, finishes the recording and returns the ports. Safe to call twice. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#pacer.stop();
      this.#rtcp.stop();
      this.#playback.clear();
      this.#sender.clearDigits();
      this.ports.release();
      await this.recorder?.close();
    })();
    return this.#closed;
  }

  #tick(now: number): void {
    const sent = this.#sender.next(this.#playback);
    this.#sendTo(this.ports.rtp, this.#rtpPeer, serializeRtp(sent.packet));
    this.options.probe?.sent(performance.now(), sent.packet.sequenceNumber);
    if (sent.packet.marker && sent.pcm) this.emit('talkspurt', performance.now());
    this.#hear(now, sent.pcm);
    this.#checkTimeout(now);
  }

  /** Ticks lost to a stall: nothing is sent for them, but playout and the recording keep time. */
  #skip(ticks: number): void {
    this.#ticksSkipped += ticks;
    this.#sender.skip(ticks);
    const now = performance.now();
    for (let i = 0; i < ticks; i++) this.#hear(now, undefined);
  }

  #hear(now: number, sentPcm: Int16Array | undefined): void {
    const heard = this.#playout.next(now);
    this.recorder?.write(sentPcm, heard, FRAME_SAMPLES);
    this.emit('audio', heard);
  }

  #checkTimeout(now: number): void {
    if (this.#answeredAt === undefined || this.#timedOut) return;
    const since = Math.max(this.#answeredAt, this.#lastRtpAt ?? 0);
    if (now - since >= (this.options.mediaTimeoutMs ?? 30_000)) {
      this.#timedOut = true;
      this.emit('media-timeout');
    }
  }

  #onRtp(datagram: Buffer, from: RemoteInfo): void {
    const packet =
      this.#closed || !this.#rtpPeer.accepts(from) ? undefined : parseRtp(datagram, this.#accepted);
    if (!packet) {
      this.#ignored++;
      return;
    }
    this.#rtpPeer.latch(from);
    const now = performance.now();
    this.#lastRtpAt = now;
    this.options.probe?.received(now, packet.sequenceNumber);
    const isEvent = packet.payloadType === this.#eventPayloadType();
    if (this.#receiver.ssrc !== undefined && this.#receiver.ssrc !== packet.ssrc) this.#playout.reset();
    const { ssrc, sequenceNumber, timestamp, payload } = packet;
    this.#receiver.update(ssrc, sequenceNumber, timestamp, now, payload.length, !isEvent);
    const digit = isEvent ? this.#dtmf.detect(ssrc, timestamp, payload) : undefined;
    if (digit) this.emit('dtmf', digit);
    const pcm = isEvent ? new Int16Array(0) : decodeG711(this.#codecOf(packet.payloadType), payload);
    this.#playout.push({ sequenceNumber, timestamp, kind: isEvent ? 'event' : 'audio', payload: pcm }, now);
  }

  #onRtcp(datagram: Buffer, from: RemoteInfo): void {
    if (this.#closed || !this.#rtcpPeer.accepts(from)) return;
    const reports = this.#rtcp.receive(datagram);
    if (reports.length === 0) return;
    this.#rtcpPeer.latch(from);
    for (const report of reports) this.emit('rtcp', report);
  }

  #eventPayloadType(): number {
    return this.#negotiated?.telephoneEventPayloadType ?? DEFAULT_TELEPHONE_EVENT_PT;
  }

  #codecOf(payloadType: number): G711Codec {
    if (this.#negotiated && payloadType === this.#negotiated.payloadType) return this.#negotiated.codec;
    return payloadType === STATIC_PAYLOAD_TYPES.PCMA ? 'PCMA' : 'PCMU';
  }

  #sendTo(socket: RtpPortPair['rtp'], peer: SymmetricPeer, data: Buffer): void {
    const target = peer.target;
    if (!target || this.#closed) return;
    try {
      socket.send(data, target.port, target.address);
    } catch {
      // the socket closed under a late timer: the call is over
    }
  }
}
