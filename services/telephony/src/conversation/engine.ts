import { performance } from 'node:perf_hooks';
import type { Logger, SipCallEnd, SipConversationResult } from '@voice/shared';
import {
  type AmdResult,
  AnsweringMachineDetector,
  VoiceActivityDetector,
  type VoicemailBeepWaiter,
} from '../media/analysis';
import { type AgentMedia, AgentVoice } from './agent-voice';
import { flowsOnlyBrain } from './flows-brain';
import { type HeardEvent, Listener } from './listener';
import type { ConversationMetrics } from './metrics';
import type {
  Brain,
  BrainAction,
  BrainContext,
  BrainSession,
  ConversationEnd,
  ConversationLine,
  SpeechRecognizer,
  SpeechSynthesizer,
} from './types';

/** The engines a deployment chose (CONVERSATION_BRAIN, TTS_ENGINE, STT_ENGINE). */
export interface ConversationEngines {
  tts: SpeechSynthesizer;
  stt: SpeechRecognizer;
  brain: Brain;
}

export interface ConversationSettings {
  /** The callee saying nothing this long after the agent finished is a silence (reprompt, then goodbye). */
  silenceMs: number;
  /** Answering-machine detection before the agent speaks. */
  amd: boolean;
  /** Quiet that ends the callee's utterance (the voice activity detector's hangover). */
  endOfUtteranceMs: number;
}

export interface ConversationDeps {
  engines: ConversationEngines;
  settings: ConversationSettings;
  log: Logger;
  metrics?: ConversationMetrics | undefined;
}

/** The call's media as the conversation uses it (an RtpSession). */
export interface ConversationMedia extends AgentMedia {
  on(event: 'audio', listener: (pcm: Int16Array) => void): unknown;
  on(event: 'talkspurt', listener: (atMs: number) => void): unknown;
  off(event: 'audio', listener: (pcm: Int16Array) => void): unknown;
  off(event: 'talkspurt', listener: (atMs: number) => void): unknown;
}

/** Why the agent ends the call: the brain's reason, or a voicemail message left. */
export type AgentEnd = ConversationEnd | 'voicemail';

type Phase = 'waiting' | 'screening' | 'voicemail' | 'talking' | 'ended';

/**
 * One call's conversation over its media: answering-machine screening, then turns: the callee's
 * utterances (voice activity, end of utterance, recognition) to the brain, the brain's lines
 * through speech synthesis back into the call, barge-in, silence and the maximum duration. It
 * asks the call to hang up through `end`; the call tells it when the line is gone (`close`).
 */
export class Conversation {
  #phase: Phase = 'waiting';
  readonly #voice: AgentVoice;
  readonly #listener: Listener;
  readonly #session: BrainSession;
  readonly #lines: ConversationLine[] = [];
  readonly #heard: SipCallEnd['heard'] = [];
  readonly #unavailable: string | null;
  #amd: AnswerScreen | undefined;
  #amdVerdict: SipConversationResult['amd'] = 'not_run';
  #turn = 0;
  #utterances: Promise<void> = Promise.resolve();
  #silenceTimer: NodeJS.Timeout | undefined;
  #maxTimer: NodeJS.Timeout | undefined;
  #silences = 0;
  #replyDueSince: number | undefined;
  #ended: AgentEnd | null = null;
  #finalising = false;
  /** A turn's actions are still being worked out or synthesised. */
  #thinking = false;
  /** The turn that last answered the callee: a newer #turn means they talked over it. */
  #turnAtLastReply = 0;
  readonly #onAudio = (pcm: Int16Array) => this.#hear(pcm);
  readonly #onTalk = (atMs: number) => this.#talked(atMs);

  constructor(
    private readonly deps: ConversationDeps,
    private readonly media: ConversationMedia,
    private readonly context: BrainContext,
    voice: string | null,
    private readonly end: (why: AgentEnd) => void,
  ) {
    const { engines, metrics, log } = deps;
    const { language } = context;
    const supported = engines.stt.supports(language);
    this.#unavailable = supported
      ? null
      : `no speech recogniser for language ${language} here (${engines.stt.name}): what the callee said is in the recording only`;
    this.#session = supported ? engines.brain.start(context) : flowsOnlyBrain(context);
    const failed = (kind: 'stt' | 'tts' | 'brain') => (error: unknown) => {
      metrics?.engineFailed(kind);
      log.warn({ err: error, engine: kind }, 'conversation: engine failed');
    };
    this.#voice = new AgentVoice(
      media,
      engines.tts,
      { language, voice },
      { firstAudio: (ms) => metrics?.firstAudio(engines.tts.name, ms), failed: failed('tts') },
    );
    this.#listener = new Listener(
      supported ? engines.stt : null,
      { language, names: namesOf(context) },
      { recognised: (ms) => metrics?.recognised(engines.stt.name, ms), failed: failed('stt') },
      new VoiceActivityDetector({ hangoverMs: deps.settings.endOfUtteranceMs }),
    );
  }

  /** Screening said an answering machine picked up: the call is a voicemail, however it ends. */
  get reachedMachine(): boolean {
    return this.#amdVerdict === 'machine';
  }

  /** The call is answered: screening (or the opening) starts now. */
  answered(): void {
    if (this.#phase !== 'waiting') return;
    this.media.on('audio', this.#onAudio);
    this.media.on('talkspurt', this.#onTalk);
    const maxMs = this.context.conversation.max_duration_seconds * 1000;
    this.#maxTimer = setTimeout(() => this.#respond({ type: 'max_duration' }), maxMs);
    const opening = collect(this.#session.open());
    // The opening's first line is synthesised while screening decides who answered.
    void opening.then((actions) => {
      for (const a of actions) if (a.type === 'say') this.#voice.warm(a.text);
    });
    if (this.deps.settings.amd) {
      this.#phase = 'screening';
      this.#amd = new AnswerScreen(opening);
      this.#listener.expect({ slots: [], phrases: [] });
    } else {
      this.#phase = 'talking';
      void this.#run(opening.then(replay));
    }
  }

  /** The line is gone (either side hung up): everything stops. Safe to call twice. */
  close(): void {
    if (this.#phase === 'ended') return;
    this.#phase = 'ended';
    this.#turn++;
    clearTimeout(this.#silenceTimer);
    clearTimeout(this.#maxTimer);
    this.media.off('audio', this.#onAudio);
    this.media.off('talkspurt', this.#onTalk);
    this.#voice.close();
    this.#listener.close();
  }

  /** What the call record keeps of the conversation; call after close(). */
  async result(): Promise<{
    spoken: SipCallEnd['spoken'];
    heard: SipCallEnd['heard'];
    conversation: SipConversationResult;
  }> {
    await this.#utterances.catch(() => undefined);
    const end = this.#ended === 'voicemail' ? null : this.#ended;
    const outcome = await this.#session.outcome(this.#lines, end).catch((error: unknown) => {
      this.deps.log.warn({ err: error }, 'conversation: the outcome could not be worked out');
      return { collected: {}, opted_out: false, sentiment: 'neutral' as const, summary: '' };
    });
    return {
      spoken: this.#voice.lines.map((line) => ({ ...line })),
      heard: this.#heard,
      conversation: {
        amd: this.#amdVerdict,
        collected: outcome.collected,
        opted_out: outcome.opted_out,
        sentiment: this.#ended === 'voicemail' ? 'neutral' : outcome.sentiment,
        summary: outcome.summary.slice(0, 2000),
        recognition_unavailable: this.#unavailable,
      },
    };
  }

  #hear(pcm: Int16Array): void {
    const atMs = performance.now();
    switch (this.#phase) {
      case 'screening':
        this.#screen(pcm, atMs);
        return;
      case 'voicemail':
        if (this.#amd?.beep(pcm, atMs)) this.#leaveMessage();
        return;
      case 'talking':
        this.#onHeard(this.#listener.push(pcm, atMs));
        return;
      default:
    }
  }

  /** Before the agent speaks: who answered? The greeting is recognised like any utterance. */
  #screen(pcm: Int16Array, atMs: number): void {
    const screen = this.#amd!;
    const heard = this.#listener.push(pcm, atMs);
    if (heard?.type === 'end') this.#keepGreeting(heard);
    const verdict = screen.push(pcm, atMs);
    if (!verdict) return;
    this.#amdVerdict = verdict.verdict;
    this.deps.metrics?.amd(verdict.verdict);
    this.deps.log.debug({ verdict: verdict.verdict, reason: verdict.reason }, 'conversation: who answered');
    if (verdict.verdict === 'machine') {
      this.#phase = 'voicemail';
      this.#listener.ignoreCurrent();
      this.#voice.warm(this.#session.voicemailMessage());
      return;
    }
    this.#phase = 'talking';
    void this.#run(screen.opening.then(replay));
  }

  #keepGreeting(heard: Extract<HeardEvent, { type: 'end' }>): void {
    this.#utterances = this.#utterances.then(async () => {
      const text = await heard.text;
      if (text?.text) this.#keepHeard(text.text, text.confidence, heard.startedAt);
    });
  }

  #leaveMessage(): void {
    this.#phase = 'talking';
    this.#ended = 'voicemail';
    const turn = ++this.#turn;
    void (async () => {
      await this.#voice.say(this.#session.voicemailMessage());
      await this.#voice.drained();
      if (turn === this.#turn) this.end('voicemail');
    })();
  }

  #onHeard(event: HeardEvent | undefined): void {
    if (!event || this.#ended) return;
    if (event.type === 'start') {
      clearTimeout(this.#silenceTimer);
      this.#replyDueSince = undefined;
      // Talking over the agent (or over its answer being prepared) stops it.
      if (this.#voice.interrupt() || this.#thinking) {
        this.#turn++;
        this.deps.metrics?.bargeIn();
      }
      return;
    }
    if (event.type === 'dropped') {
      // A cough or a click, not words: if it stopped the agent, the brain picks the thread up again.
      if (this.#turn !== this.#turnAtLastReply) void this.#respond(NOTHING_HEARD);
      else this.#armSilence(this.#turn);
      return;
    }
    const { atMs, startedAt, text } = event;
    const interrupted = this.#turn !== this.#turnAtLastReply;
    this.#utterances = this.#utterances.then(async () => {
      const recognised = await text;
      if (this.#phase !== 'talking' || this.#ended) return;
      const said = recognised?.text ?? '';
      if (said) this.#keepHeard(said, recognised!.confidence, startedAt);
      this.#silences = 0;
      this.#replyDueSince = atMs;
      await this.#respond({
        type: 'utterance',
        text: said,
        confidence: recognised?.confidence ?? 0,
        interrupted,
      });
    });
  }

  #keepHeard(text: string, confidence: number, at: Date): void {
    if (this.#heard.length >= 1000) return;
    const clean = text.slice(0, 2000);
    this.#heard.push({ text: clean, at: at.toISOString(), confidence: Math.min(1, Math.max(0, confidence)) });
    this.#lines.push({ role: 'user', text: clean });
  }

  async #respond(input: Parameters<BrainSession['respond']>[0]): Promise<void> {
    if (this.#phase === 'ended' || this.#finalising) return;
    if (input.type === 'max_duration') {
      this.#finalising = true;
      this.#voice.interrupt();
      this.#turn++;
    }
    await this.#run(this.#session.respond(input, [...this.#lines]));
    if (input.type === 'max_duration' && !this.#ended && (this.#phase as Phase) !== 'ended') {
      this.#ended = 'max_duration';
      this.end('max_duration');
    }
  }

  /** Plays one turn of the brain's actions; a newer turn (barge-in) supersedes it. */
  async #run(actions: AsyncIterable<BrainAction> | Promise<AsyncIterable<BrainAction>>): Promise<void> {
    const turn = ++this.#turn;
    this.#turnAtLastReply = turn;
    this.#thinking = true;
    let ending: ConversationEnd | undefined;
    try {
      for await (const action of await actions) {
        if (turn !== this.#turn || this.#phase === 'ended') return;
        switch (action.type) {
          case 'say':
            if (!action.text.trim()) break;
            this.#lines.push({ role: 'agent', text: action.text });
            await this.#voice.say(action.text);
            break;
          case 'expect':
            this.#listener.expect(action.expect);
            break;
          case 'end_call':
            ending = action.reason;
            break;
          default:
          // record_detail and opt_out are the brain's own state: outcome() reports them.
        }
      }
    } catch (error) {
      this.deps.metrics?.engineFailed('brain');
      this.deps.log.warn({ err: error }, 'conversation: the brain failed; the call ends politely');
      ending = 'completed';
      await this.#voice.say(this.context.end_flow || 'Sorry, something went wrong on our side. Goodbye.');
    } finally {
      if (turn === this.#turn) this.#thinking = false;
    }
    if (turn !== this.#turn) return;
    await this.#voice.drained();
    if (turn !== this.#turn || this.#phase === 'ended') return;
    if (ending) {
      this.#ended = ending;
      this.end(ending);
      return;
    }
    this.#armSilence(turn);
  }

  #armSilence(turn: number): void {
    clearTimeout(this.#silenceTimer);
    this.#silenceTimer = setTimeout(() => {
      if (turn !== this.#turn || this.#listener.inSpeech || this.#ended) return;
      this.#silences++;
      void this.#respond({ type: 'silence', count: this.#silences });
    }, this.deps.settings.silenceMs);
  }

  /** The agent's first packet after the callee stopped: that turn's latency. */
  #talked(atMs: number): void {
    if (this.#replyDueSince === undefined) return;
    this.deps.metrics?.turn(atMs - this.#replyDueSince);
    this.#replyDueSince = undefined;
  }
}

/** Answering-machine detection, then (for a machine) waiting for the beep. */
class AnswerScreen {
  readonly #detector = new AnsweringMachineDetector();
  #waiter: VoicemailBeepWaiter | undefined;

  constructor(readonly opening: Promise<BrainAction[]>) {}

  push(pcm: Int16Array, atMs: number): AmdResult | undefined {
    return this.#detector.push(pcm, atMs);
  }

  /** True once the machine is ready for the message: after its beep, or a long silence, or a timeout. */
  beep(pcm: Int16Array, atMs: number): boolean {
    // It carries on from what detection heard: a beep may have begun during the greeting.
    this.#waiter ??= this.#detector.voicemailWaiter();
    return this.#waiter.push(pcm, atMs) !== undefined;
  }
}

const NOTHING_HEARD = { type: 'utterance', text: '', confidence: 0, interrupted: true } as const;

async function collect(actions: AsyncIterable<BrainAction>): Promise<BrainAction[]> {
  const out: BrainAction[] = [];
  for await (const action of actions) out.push(action);
  return out;
}

async function* replay(actions: BrainAction[]): AsyncIterable<BrainAction> {
  yield* actions;
}

/** Names worth hearing: the callee's from metadata, the agent's. */
function namesOf(context: BrainContext): string[] {
  const names = new Set<string>();
  const metadata = context.conversation.metadata ?? {};
  for (const key of ['name', 'first_name', 'firstName', 'customer_name', 'contact_name']) {
    const value = metadata[key];
    if (typeof value === 'string') for (const part of value.split(/\s+/)) if (part) names.add(part);
  }
  for (const part of context.conversation.agent_name.split(/\s+/)) if (part) names.add(part);
  return [...names].slice(0, 20);
}
