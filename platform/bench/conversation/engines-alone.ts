import { performance } from 'node:perf_hooks';
import { energyEnvelope, readMono, speechClip, trimSilence } from '@voice/shared/testing/sip';
import { RulesBrain } from '../../../services/telephony/src/conversation/rules-brain';
import type {
  BrainAction,
  BrainContext,
  Expectation,
} from '../../../services/telephony/src/conversation/types';
import { decodeG711, encodeG711, FRAME_SAMPLES } from '../../../services/telephony/src/media/codec';
import { PocketsphinxRecognizer } from '../../../services/telephony/src/speech/stt';
import { LocalSynthesizer } from '../../../services/telephony/src/speech/tts';
import { sleep } from '../support';
import { ANSWERS, CONVERSATION, SPEECH } from './script';

// The engines of a turn measured one at a time, outside any call, on the bench dialogue's own
// utterances and lines: speech recognition from finish() to the text, the rule brain's answer,
// and speech synthesis to its first audio.

/** What the agent expects before each answer, and what it says: the rule brain's dialogue replayed. */
export async function dialogue(): Promise<{ expects: Expectation[]; lines: string[] }> {
  const session = new RulesBrain().start(brainContext());
  const expects: Expectation[] = [];
  const lines: string[] = [];
  const take = (actions: BrainAction[]) => {
    for (const a of actions) {
      if (a.type === 'say') lines.push(a.text);
      if (a.type === 'expect') expects.push(a.expect);
    }
  };
  take(await collect(session.open()));
  for (const answer of ANSWERS) take(await collect(session.respond(utterance(answer), [])));
  return { expects, lines };
}

function brainContext(): BrainContext {
  return {
    conversation: CONVERSATION,
    language: 'en-US',
    ...SPEECH,
    source_number: '+15550001111',
    now: new Date(),
  };
}

const utterance = (text: string) =>
  ({
    type: 'utterance',
    text: text.toLowerCase().replace(/[^a-z ]/g, ''),
    confidence: 0.9,
    interrupted: false,
  }) as const;

async function collect(actions: AsyncIterable<BrainAction>): Promise<BrainAction[]> {
  const out: BrainAction[] = [];
  for await (const a of actions) out.push(a);
  return out;
}

/** The rule brain's time per turn (open, then each answer), µs, over `runs` whole dialogues. */
export async function brainAlone(runs: number): Promise<number[]> {
  const out: number[] = [];
  for (let run = 0; run < runs; run++) {
    const session = new RulesBrain().start(brainContext());
    await collect(session.open());
    for (const answer of ANSWERS) {
      const started = performance.now();
      await collect(session.respond(utterance(answer), []));
      out.push((performance.now() - started) * 1000);
    }
  }
  return out;
}

export interface SttSample {
  said: string;
  heard: string;
  /** finish() to the recognised text, ms. */
  finishMs: number;
  /** Written in real time (as in a call), or all at once just before finish(). */
  paced: boolean;
}

/** The engine's VAD: 700 ms of quiet after the last voiced frame end an utterance. */
const HANGOVER_MS = 700;
/** The listener's pre-roll before the onset, and the quiet it writes after the last speech. */
const PRE_ROLL_MS = 240;
const TAIL_MS = 200;
/** In a call the recogniser opens while the agent is still speaking its question. */
const OPEN_AHEAD_MS = 1000;

/**
 * pocketsphinx on each answer as the call delivers it: the callee's clip (flite slt, 8 kHz, the
 * file baresip plays) from its pre-roll on, through G.711 mu-law, to a recogniser opened ahead
 * with the turn's grammar; written 20 ms a frame in real time, then the hangover's wait, the
 * tail of quiet, and finish(). Then once more each, written all at once (a decoder behind).
 */
export async function sttAlone(repeats: number, expects: Expectation[]): Promise<SttSample[]> {
  const stt = new PocketsphinxRecognizer();
  await stt.prepare();
  const out: SttSample[] = [];
  for (let r = 0; r <= repeats; r++) {
    const paced = r < repeats;
    for (const [i, said] of ANSWERS.entries()) {
      const pcm = await lineAudio(said);
      const stream = stt.open({ language: 'en-US', expect: expects[i]!, names: ['Riley'] });
      await sleep(OPEN_AHEAD_MS);
      if (paced) {
        const start = performance.now();
        for (let at = 0, n = 0; at < pcm.length; at += FRAME_SAMPLES, n++) {
          stream.write(pcm.subarray(at, at + FRAME_SAMPLES));
          const due = start + (n + 1) * 20 - performance.now();
          if (due > 0) await sleep(due);
        }
        await sleep(HANGOVER_MS);
      } else stream.write(pcm);
      stream.write(new Int16Array((TAIL_MS * 8000) / 1000));
      const finished = performance.now();
      const result = await stream.finish();
      out.push({ said, heard: result.text, finishMs: performance.now() - finished, paced });
    }
  }
  return out;
}

/**
 * The answer's clip as the listener hands it over: from the pre-roll before its first sound (flite's
 * own quiet lead-in, not digital zero, which makes pocketsphinx invent words) to its last sound,
 * through G.711 mu-law and back.
 */
async function lineAudio(text: string): Promise<Int16Array> {
  const { samples } = await readMono(await speechClip(text, 'slt'));
  const end = trimSilence(samples).length;
  let first = 0;
  while (first < end && Math.abs(samples[first]!) < 64) first++;
  const from = Math.max(0, first - (PRE_ROLL_MS * 8000) / 1000);
  return decodeG711('PCMU', encodeG711('PCMU', samples.subarray(from, end)));
}

export interface TtsSample {
  text: string;
  /** Asking for the line to its first audio, ms. */
  firstMs: number;
  /** The whole line synthesised, ms. */
  allMs: number;
  /** The line's length, s. */
  audioS: number;
  /** Audio before its first sound (a 20 ms frame over the recordings' gate, RMS 300), ms. */
  leadMs: number;
}

/** The local synthesiser (the engine's default for en-US) on each of the agent's lines, `repeats` times. */
export async function ttsAlone(repeats: number, lines: string[]): Promise<TtsSample[]> {
  const tts = new LocalSynthesizer();
  const out: TtsSample[] = [];
  for (let r = 0; r < repeats; r++) {
    for (const text of lines) {
      const started = performance.now();
      let firstMs = Number.NaN;
      const chunks: Int16Array[] = [];
      for await (const chunk of tts.stream({ text, language: 'en-US', voice: null })) {
        if (chunks.length === 0) firstMs = performance.now() - started;
        chunks.push(chunk);
      }
      const allMs = performance.now() - started;
      const pcm = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        pcm.set(c, at);
        at += c.length;
      }
      const loud = energyEnvelope(pcm).findIndex((rms) => rms > 300);
      out.push({
        text,
        firstMs,
        allMs,
        audioS: pcm.length / 8000,
        leadMs: loud < 0 ? Number.NaN : loud * 20,
      });
    }
  }
  return out;
}
