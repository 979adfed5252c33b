import { type Logger, MAX_DTMF_DIGITS, type SipCallEnd, type SipDialRequest, type Sql } from '@voice/shared';
import { type AgentEnd, Conversation, type ConversationDeps } from '../conversation/engine';
import { type CallRow, callRepository, type ProgressStep } from '../db/call-repository';
import type { TrunkRow } from '../db/trunk-rows';
import { decideEnd, type LocalEnd } from '../domain/call-end';
import type { RtpPortPool } from '../media';
import { RtpSession } from '../media';
import type { CallEnded, CallLeg, CallProgress, SipUserAgent } from '../sip';
import type { TrunkAdmissions } from './admissions';
import type { CallRecordings } from './call-recordings';
import { legDetail, withRetries } from './call-support';

/** What one call needs from its instance. */
export interface LiveCallDeps {
  sql: Sql;
  log: Logger;
  ua: SipUserAgent;
  pool: RtpPortPool;
  /** Address the RTP sockets are bound to, and what SDP advertises behind NAT. */
  rtp: { localAddress: string; publicAddress?: string | undefined; mediaTimeoutMs: number };
  admissions: TrunkAdmissions;
  recordings: CallRecordings;
  /** 8 kHz mono speech for `text` in `language`. */
  speak(text: string, language: string): Promise<Int16Array>;
  /** Longest wait for the trunk to take the call (a free line, a calls_per_second slot) before it fails instead. */
  maxAdmissionWaitMs: number;
  /** The conversation engines; without them (or a request without `conversation`) the agent speaks its flows only. */
  conversation?: ConversationDeps | undefined;
}

/** How the call ends when the agent ends the conversation. */
const AGENT_ENDS: Record<AgentEnd, LocalEnd> = {
  voicemail: 'voicemail',
  silence: 'silence',
  max_duration: 'max_duration',
  completed: 'conversation_done',
  not_interested: 'conversation_done',
  call_back: 'conversation_done',
  opted_out: 'conversation_done',
  wrong_person: 'conversation_done',
};

/** How often a call waiting for a free line on its trunk asks again. */
const LINE_POLL_MS = 250;

/**
 * One real call on this instance: admission to its trunk, the SIP leg, its media and recording,
 * the agent's flows spoken into it, and its progress written (with its event) as it happens.
 * `run()` settles once the call's end is recorded; `stop()` ends it early, first reason wins.
 */
export class LiveCall {
  private local: LocalEnd | null = null;
  private detail: string | null = null;
  private leg: CallLeg | undefined;
  private legEnded = false;
  private session: RtpSession | undefined;
  private conversation: Conversation | undefined;
  private recordingPath: string | undefined;
  private answeredAt: Date | null = null;
  private rang = false;
  private readonly spoken: SipCallEnd['spoken'] = [];
  private readonly dtmf: SipCallEnd['dtmf'] = [];
  private writes: Promise<unknown> = Promise.resolve();
  private wake: (() => void) | undefined;

  constructor(
    private readonly deps: LiveCallDeps,
    private readonly row: CallRow,
    private readonly trunk: TrunkRow,
    private readonly request: SipDialRequest,
  ) {}

  get callId(): string {
    return this.row.call_id;
  }

  /** Carries the call to its end; resolves with that end, as the ended event states it. */
  async run(): Promise<SipCallEnd> {
    let legEnd: CallEnded | null = null;
    try {
      legEnd = await this.dial();
    } catch (error) {
      this.stop('setup_failed', `the call could not be set up: ${(error as Error).message}`.slice(0, 500));
    }
    await this.writes;
    return this.finish(legEnd);
  }

  /** Ends the call: CANCEL before the answer, BYE after, or never dialing it. The first reason wins. */
  stop(local: LocalEnd, detail: string | null = null): void {
    if (this.local || this.legEnded) return;
    this.local = local;
    this.detail = detail;
    this.conversation?.close();
    this.wake?.();
    void this.leg?.hangUp();
  }

  private async dial(): Promise<CallEnded | null> {
    const speech = this.deps.conversation && this.request.conversation ? [] : this.prepareSpeech();
    if (!(await this.admit())) return null;
    const { deps, trunk, request } = this;
    this.recordingPath = await deps.recordings.pathFor(this.callId);
    this.session = await RtpSession.open({
      pool: deps.pool,
      localAddress: deps.rtp.localAddress,
      ...(deps.rtp.publicAddress ? { publicAddress: deps.rtp.publicAddress } : {}),
      codecs: trunk.codecs,
      mediaTimeoutMs: deps.rtp.mediaTimeoutMs,
      recordingPath: this.recordingPath,
    });
    this.session.on('media-timeout', () => this.stop('no_media', 'no media'));
    this.session.on('dtmf', (digit) => this.pressed(digit));
    this.conversation = this.startConversation(this.session);
    if (this.local) return null;
    const leg = deps.ua.invite({
      trunk: { uri: trunk.uri, username: trunk.username, password: trunk.password },
      from: request.source_number,
      to: request.destination_number,
      sdpOffer: this.session.localDescription(),
      ringTimeoutMs: trunk.ring_timeout_seconds * 1000,
    });
    this.leg = leg;
    leg.onProgress((progress) => this.onProgress(progress, speech));
    return leg.waitFor('ended');
  }

  private startConversation(session: RtpSession): Conversation | undefined {
    const { conversation: engines } = this.deps;
    const { conversation, speech, source_number } = this.request;
    if (!engines || !conversation) return undefined;
    const context = {
      conversation,
      language: speech.language,
      start_flow: speech.start_flow,
      end_flow: speech.end_flow,
      source_number,
      now: new Date(),
    };
    const log = this.deps.log.child({ call_id: this.callId });
    return new Conversation({ ...engines, log }, session, context, speech.voice, (why) =>
      this.stop(AGENT_ENDS[why]),
    );
  }

  /** Synthesis starts with the dial, so the agent speaks as soon as the call is answered. */
  private prepareSpeech(): Promise<Int16Array | Error>[] {
    const { speech } = this.request;
    return [speech.start_flow, speech.end_flow].map((text) =>
      text.trim()
        ? this.deps.speak(text, speech.language).catch((error: unknown) => error as Error)
        : Promise.resolve(new Int16Array(0)),
    );
  }

  /**
   * Waits for the trunk to take the call: for a free line (max_concurrent_calls) and for its
   * calls_per_second slot, as the trunk's settings promise, at most maxAdmissionWaitMs. The call
   * stays `initializing` meanwhile; a hang-up ends the wait.
   */
  private async admit(): Promise<boolean> {
    const { deps, row, trunk } = this;
    const deadline = Date.now() + deps.maxAdmissionWaitMs;
    for (;;) {
      if (this.local) return false;
      const admission = await deps.admissions.tryAdmit(row.account_id, trunk.id, row.call_id);
      if (admission.outcome === 'admit') return true;
      // A line frees when another call ends, on any instance: look again shortly.
      const retryAt = admission.retryAt ?? Date.now() + LINE_POLL_MS;
      if (retryAt > deadline) {
        this.stop(
          admission.reason === 'max_concurrent_calls' ? 'at_capacity' : 'setup_failed',
          `trunk ${trunk.name} did not take the call within ${Math.round(deps.maxAdmissionWaitMs / 1000)} s ` +
            `(${admission.reason}): not dialed`,
        );
        return false;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, retryAt - Date.now()));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  private onProgress(progress: CallProgress, speech: Promise<Int16Array | Error>[]): void {
    const session = this.session!;
    switch (progress.type) {
      case 'ringing':
        if (progress.earlySdp && !session.negotiated) this.startMedia(progress.earlySdp);
        if (!this.rang) {
          this.rang = true;
          this.record({ type: 'ringing', sip_code: progress.sipCode, sip_reason: progress.sipReason });
        }
        return;
      case 'answered':
        this.answered(progress.sipCode, progress.sipReason, progress.remoteSdp, speech);
        return;
      case 'media_updated':
        this.startMedia(progress.remoteSdp);
        return;
      case 'ended':
        this.legEnded = true;
        return;
      default:
    }
  }

  /** Early media, or a re-INVITE: a far end whose SDP we cannot use keeps what it had. */
  private startMedia(sdp: string): boolean {
    try {
      this.session!.setRemoteDescription(sdp);
      this.session!.start();
      return true;
    } catch (error) {
      this.deps.log.debug({ call_id: this.callId, err: error }, 'telephony: far-end SDP not usable');
      return false;
    }
  }

  private answered(
    sipCode: number,
    sipReason: string,
    sdp: string | null,
    speech: Promise<Int16Array | Error>[],
  ): void {
    if (this.local) {
      void this.leg?.hangUp();
      return;
    }
    const session = this.session!;
    if (sdp) {
      try {
        session.setRemoteDescription(sdp);
      } catch (error) {
        this.stop('bad_sdp', `the answer's SDP is not usable: ${(error as Error).message}`.slice(0, 500));
        return;
      }
    } else if (!session.negotiated) {
      this.stop('bad_sdp', 'the answer (200 OK) carried no SDP and there was no early media');
      return;
    }
    this.answeredAt = new Date();
    session.start();
    session.markAnswered();
    this.record({ type: 'answered', sip_code: sipCode, sip_reason: sipReason }, this.answeredAt);
    if (this.conversation) this.conversation.answered();
    else void this.speakFlows(speech);
  }

  /** start_flow, then end_flow, then BYE: the conversation in between comes with the next issue. */
  private async speakFlows(speech: Promise<Int16Array | Error>[]): Promise<void> {
    const texts = [this.request.speech.start_flow, this.request.speech.end_flow];
    for (const [i, prepared] of speech.entries()) {
      const pcm = await prepared;
      if (this.local || this.legEnded) return;
      if (pcm instanceof Error) {
        this.deps.log.warn({ call_id: this.callId, err: pcm }, 'telephony: speech synthesis failed');
        this.detail = 'speech synthesis failed: the agent could not speak';
        break;
      }
      if (pcm.length === 0) continue;
      this.spoken.push({ text: texts[i]!, at: new Date().toISOString(), interrupted: false });
      await this.session!.play(pcm);
    }
    this.stop('finished', this.detail);
  }

  /** A key the callee pressed, kept for the call record; early media is not the callee yet. */
  private pressed(digit: string): void {
    if (!this.answeredAt || this.dtmf.length >= MAX_DTMF_DIGITS) return;
    this.dtmf.push({ digit, at: new Date().toISOString() });
  }

  /** Queues a progress write after the ones before it; a call the sweeper ended meanwhile is hung up. */
  private record(step: Omit<ProgressStep, 'at' | 'end'>, at = new Date()): void {
    this.writes = this.writes.then(async () => {
      const written = await this.write({ ...step, at: at.toISOString(), end: null });
      if (!written) this.stop('instance_lost', 'the call was ended elsewhere while this instance carried it');
    });
  }

  private write(step: ProgressStep): Promise<boolean> {
    return withRetries(
      () => callRepository.progress(this.deps.sql, this.row, step),
      (error) => this.deps.log.warn({ call_id: this.callId, err: error }, 'telephony: progress write failed'),
    ).catch(() => false);
  }

  private async finish(legEnd: CallEnded | null): Promise<SipCallEnd> {
    const endedAt = new Date();
    this.conversation?.close();
    const talk = this.answeredAt ? await this.conversation?.result() : undefined;
    await this.session?.close().catch((error: unknown) => {
      this.deps.log.warn({ call_id: this.callId, err: error }, 'telephony: recording did not close cleanly');
    });
    const recorded = await this.keepRecording();
    const answeredAt = this.answeredAt;
    const decision = decideEnd({
      answered: answeredAt !== null,
      leg: legEnd && { cause: legEnd.cause, sipCode: legEnd.sipCode, by: legEnd.by },
      local: this.local,
      machine: this.conversation?.reachedMachine ?? false,
    });
    const end: SipCallEnd = {
      ...decision,
      answered_at: answeredAt?.toISOString() ?? null,
      ended_at: endedAt.toISOString(),
      duration_seconds: answeredAt ? Math.max(0, endedAt.getTime() - answeredAt.getTime()) / 1000 : 0,
      spoken: talk?.spoken ?? this.spoken,
      heard: talk?.heard ?? [],
      dtmf: this.dtmf,
      recorded,
      detail: this.detail ?? legDetail(legEnd),
      conversation: talk?.conversation ?? null,
    };
    const step = { sip_code: legEnd?.sipCode ?? null, sip_reason: legEnd?.sipReason ?? null };
    if (!(await this.write({ type: 'ended', at: end.ended_at, ...step, end }))) {
      // Ended elsewhere (or the database is gone): the trunk's slot must not stay taken either way.
      await this.deps.admissions.release(this.callId).catch(() => undefined);
    }
    return end;
  }

  private async keepRecording(): Promise<boolean> {
    const file = this.recordingPath;
    if (!file) return false;
    const { recordings, log } = this.deps;
    try {
      if (this.answeredAt) return await recordings.keep(this.callId, file);
      await recordings.discard(file);
    } catch (error) {
      log.warn({ call_id: this.callId, err: error }, 'telephony: the recording could not be kept');
    }
    return false;
  }
}
