import { describe, expect, it } from 'vitest';
import {
  AMD_RULES,
  type AmdFeatures,
  type AmdResult,
  AnsweringMachineDetector,
  amdThresholds,
  DEFAULT_AMD_THRESHOLDS,
  decideAmd,
  VoicemailBeepWaiter,
  type VoicemailCue,
} from '../src/media/analysis';
import { collect, frames, overG711, timeline, useAudioLab, withNoise } from './analysis-audio';

// Answering-machine detection: the decision table on its own, then the detector and the voicemail
// waiter on real audio (espeak-ng and flite greetings, sox beeps and noise) through G.711.

const GREETING =
  "Hi, you've reached Jordan, I can't take your call right now, please leave a message after the tone";
/** An arbitrary clock origin: the detectors only ever use differences. */
const T0 = 50_000;

const lab = useAudioLab();

async function onLine(pcm: Int16Array, noiseVol = 0.01): Promise<Int16Array> {
  return overG711(withNoise(pcm, await lab.noise(1000, noiseVol)));
}

function detect(pcm: Int16Array, amd = new AnsweringMachineDetector()): AmdResult[] {
  return collect(pcm, (frame, atMs) => amd.push(frame, atMs), T0).map((r) => r.event);
}

function wait(pcm: Int16Array, waiter: VoicemailBeepWaiter, startMs: number): VoicemailCue[] {
  return collect(pcm, (frame, atMs) => waiter.push(frame, atMs), startMs).map((r) => r.event);
}

const heard = (over: Partial<AmdFeatures>): AmdFeatures => ({
  elapsedMs: 1000,
  initialSilenceMs: 300,
  greetingMs: 400,
  words: 1,
  silenceAfterGreetingMs: 200,
  beep: false,
  noiseFloorDb: -60,
  ...over,
});

describe('AMD decision table', () => {
  it('waits while the evidence is still coming', () => {
    expect(decideAmd(heard({}))).toBeUndefined();
    expect(
      decideAmd(heard({ words: 0, greetingMs: 0, silenceAfterGreetingMs: 0, initialSilenceMs: 2000 })),
    ).toBe(undefined);
  });

  it.each([
    [{ beep: true }, 'machine', 'beep'],
    [{ words: 4 }, 'machine', 'max_words'],
    [{ greetingMs: 1500 }, 'machine', 'long_greeting'],
    [{ words: 0, greetingMs: 0, initialSilenceMs: 2500, elapsedMs: 2500 }, 'machine', 'initial_silence'],
    [{ silenceAfterGreetingMs: 800 }, 'human', 'short_greeting_then_silence'],
    [{ elapsedMs: 4000, noiseFloorDb: -20 }, 'uncertain', 'noisy_line'],
    [{ elapsedMs: 4000 }, 'uncertain', 'analysis_time'],
  ] as const)('%o decides %s (%s)', (features, verdict, reason) => {
    expect(decideAmd(heard(features))).toEqual({ verdict, reason });
  });

  it('takes the first rule that holds: a beep beats everything, machines beat the human rule', () => {
    expect(decideAmd(heard({ beep: true, silenceAfterGreetingMs: 900, elapsedMs: 5000 }))?.reason).toBe(
      'beep',
    );
    expect(decideAmd(heard({ words: 5, silenceAfterGreetingMs: 900 }))?.reason).toBe('max_words');
    expect(decideAmd(heard({ silenceAfterGreetingMs: 900, elapsedMs: 4000 }))?.reason).toBe(
      'short_greeting_then_silence',
    );
    expect(AMD_RULES.map((r) => r.reason)).toEqual([
      'beep',
      'max_words',
      'long_greeting',
      'initial_silence',
      'short_greeting_then_silence',
      'noisy_line',
      'analysis_time',
    ]);
  });

  it('does not trust silence on a noisy line', () => {
    const noisy = { noiseFloorDb: DEFAULT_AMD_THRESHOLDS.noisyLineDb + 5 };
    expect(decideAmd(heard({ ...noisy, words: 0, greetingMs: 0, initialSilenceMs: 3000 }))).toBeUndefined();
    expect(decideAmd(heard({ ...noisy, silenceAfterGreetingMs: 1000 }))).toBeUndefined();
  });

  it('uses the thresholds it is given, and refuses nonsense ones', () => {
    const strict = amdThresholds({ maxWords: 2, afterGreetingSilenceMs: 1200 });
    expect(decideAmd(heard({ words: 2 }), strict)?.reason).toBe('max_words');
    expect(decideAmd(heard({ silenceAfterGreetingMs: 1000 }), strict)).toBeUndefined();
    expect(() => amdThresholds({ greetingMs: -1 })).toThrow(RangeError);
    expect(() => amdThresholds({ totalAnalysisMs: Number.NaN })).toThrow(RangeError);
    expect(() => new AnsweringMachineDetector({ minWordMs: -5 })).toThrow(RangeError);
  });
});

describe('answering-machine detector on real audio', () => {
  it.each([
    ['espeak-ng', { engine: 'espeak-ng' }],
    ['flite slt', { engine: 'flite', voice: 'slt' }],
    ['flite kal', { engine: 'flite', voice: 'kal' }],
  ] as const)('a person: "Hello?" (%s) and then silence is human', async (_name, voice) => {
    const { pcm, at } = timeline(600, await lab.speech('Hello?', voice), 2500);
    const results = detect(await onLine(pcm));
    expect(results).toHaveLength(1);
    const [result] = results;
    expect(result).toMatchObject({ verdict: 'human', reason: 'short_greeting_then_silence' });
    expect(result!.features.words).toBeGreaterThanOrEqual(1);
    expect(result!.features.words).toBeLessThan(DEFAULT_AMD_THRESHOLDS.maxWords);
    expect(Math.abs(result!.features.initialSilenceMs - at[1]!.startMs)).toBeLessThanOrEqual(80);
    // Decided 800 ms after the greeting ended.
    expect(result!.decidedAtMs - T0 - at[1]!.endMs).toBeGreaterThanOrEqual(780);
    expect(result!.decidedAtMs - T0 - at[1]!.endMs).toBeLessThanOrEqual(900);
  });

  it.each([
    ['espeak-ng', { engine: 'espeak-ng' }],
    ['flite slt', { engine: 'flite', voice: 'slt' }],
    ['flite kal', { engine: 'flite', voice: 'kal' }],
  ] as const)('a machine: the long greeting (%s) is a machine before it ends', async (_name, voice) => {
    const { pcm, at } = timeline(500, await lab.speech(GREETING, voice), 500);
    const [result] = detect(await onLine(pcm));
    expect(result?.verdict).toBe('machine');
    expect(['long_greeting', 'max_words']).toContain(result!.reason);
    expect(result!.decidedAtMs - T0).toBeLessThan(at[1]!.endMs);
    expect(result!.decidedAtMs - T0).toBeLessThan(DEFAULT_AMD_THRESHOLDS.totalAnalysisMs);
  });

  it('a machine: a beep is a machine, decided as the beep ends', async () => {
    const { pcm, at } = timeline(900, await lab.tone([1000], 500), 2000);
    const [result] = detect(await onLine(pcm));
    expect(result).toMatchObject({ verdict: 'machine', reason: 'beep' });
    expect(result!.features.beep).toBe(true);
    expect(result!.features.words).toBe(0);
    expect(result!.decidedAtMs - T0 - at[1]!.endMs).toBeLessThanOrEqual(60);
  });

  it('a machine: nobody speaks for the initial silence', async () => {
    const [result] = detect(await onLine(new Int16Array(8 * 3500)));
    expect(result).toMatchObject({ verdict: 'machine', reason: 'initial_silence' });
    expect(result!.decidedAtMs - T0).toBe(2500);
  });

  it('uncertain: continuous noise, and speech on a line too noisy for silence to mean anything', async () => {
    const [noise] = detect(await onLine(new Int16Array(8 * 5000), 0.2));
    expect(noise).toMatchObject({ verdict: 'uncertain', reason: 'noisy_line' });
    expect(noise!.decidedAtMs - T0).toBe(4000);
    const { pcm } = timeline(600, await lab.speech('Hello?', { engine: 'espeak-ng' }), 4000);
    const [hello] = detect(await onLine(pcm, 0.15));
    expect(hello).toMatchObject({ verdict: 'uncertain', reason: 'noisy_line' });
    expect(hello!.features.words).toBeGreaterThanOrEqual(1);
  });

  it('gives its verdict once', async () => {
    const amd = new AnsweringMachineDetector();
    const { pcm } = timeline(600, await lab.speech('Hello?', { engine: 'espeak-ng' }), 6000);
    expect(detect(await onLine(pcm), amd)).toHaveLength(1);
    expect(amd.result?.verdict).toBe('human');
  });
});

describe('voicemail beep waiter', () => {
  it('after a machine verdict mid-greeting, carries on and cues the beep as it ends', async () => {
    const greeting = await lab.speech(GREETING, { engine: 'flite', voice: 'slt' });
    const { pcm, at } = timeline(500, greeting, 600, await lab.tone([1400], 400, 0.3), 3000);
    const amd = new AnsweringMachineDetector();
    let waiter: VoicemailBeepWaiter | undefined;
    const results: AmdResult[] = [];
    const cues: VoicemailCue[] = [];
    for (const [frame, atMs] of frames(await onLine(pcm))) {
      if (waiter) {
        const cue = waiter.push(frame, atMs);
        if (cue) cues.push(cue);
        continue;
      }
      const result = amd.push(frame, atMs);
      if (result) results.push(result);
      if (result?.verdict === 'machine') waiter = amd.voicemailWaiter();
    }
    expect(results).toHaveLength(1);
    expect(results[0]!.verdict).toBe('machine');
    expect(results[0]!.decidedAtMs).toBeLessThan(at[1]!.endMs);
    expect(cues).toHaveLength(1);
    expect(cues[0]).toMatchObject({ type: 'beep', frequencyHz: 1400 });
    expect(Math.abs(cues[0]!.atMs - at[3]!.endMs)).toBeLessThanOrEqual(20);
  });

  it('without a beep, cues the silence 2.5 s after the greeting', async () => {
    const greeting = await lab.speech(GREETING, { engine: 'espeak-ng' });
    const { pcm, at } = timeline(300, greeting, 4000);
    const cues = wait(await onLine(pcm), new VoicemailBeepWaiter(), 0);
    expect(cues).toHaveLength(1);
    expect(cues[0]!.type).toBe('silence');
    expect(cues[0]!.atMs - at[1]!.endMs).toBeGreaterThanOrEqual(2500);
    expect(cues[0]!.atMs - at[1]!.endMs).toBeLessThanOrEqual(2600);
  });

  it('gives up at the timeout while a tone never ends', async () => {
    const { pcm } = timeline(200, await lab.tone([1000], 3000, 0.3));
    const cues = wait(await onLine(pcm), new VoicemailBeepWaiter({ timeoutMs: 2000, silenceMs: 1000 }), T0);
    expect(cues).toEqual([{ type: 'timeout', atMs: T0 + 2000 }]);
  });
});
