import { describe, expect, it } from 'vitest';
import type { G711Codec } from '../src/media';
import { type VadEvent, VoiceActivityDetector } from '../src/media/analysis';
import { collect, overG711, timeline, useAudioLab, type Voice, withNoise } from './analysis-audio';

// The VAD on real speech (espeak-ng, flite) carried over G.711, on line noise and on digital
// silence: onsets where the engines put them, ends after the hangover, tones and clicks ignored.

const lab = useAudioLab();

type Start = Extract<VadEvent, { type: 'speech_start' }>;
type End = Extract<VadEvent, { type: 'speech_end' }>;

function run(pcm: Int16Array, vad = new VoiceActivityDetector()) {
  const events = collect(pcm, (frame, atMs) => vad.push(frame, atMs));
  const starts = events.filter(
    (e): e is { event: Start; frameMs: number } => e.event.type === 'speech_start',
  );
  const ends = events.filter((e): e is { event: End; frameMs: number } => e.event.type === 'speech_end');
  return { events, starts, ends, vad };
}

/** The line under the audio: sox line noise, or nothing (digital silence). */
async function line(pcm: Int16Array, noisy: boolean, codec: G711Codec): Promise<Int16Array> {
  return overG711(noisy ? withNoise(pcm, await lab.noise(1000)) : pcm, codec);
}

const CASES: [string, Voice, boolean, G711Codec][] = [
  ['Hello?', { engine: 'espeak-ng' }, true, 'PCMU'],
  ['Hello?', { engine: 'flite', voice: 'slt' }, false, 'PCMA'],
  ['Yes, that is right.', { engine: 'espeak-ng', voice: 'en-us+f3' }, false, 'PCMU'],
  ['I am not interested, thank you.', { engine: 'flite', voice: 'kal' }, true, 'PCMA'],
  ['No.', { engine: 'flite', voice: 'slt' }, true, 'PCMU'],
];

describe('voice activity detector', () => {
  it.each(CASES)(
    'finds "%s" (%o, noise %s, %s) where it starts and ends',
    async (text, voice, noisy, codec) => {
      const { pcm, at } = timeline(700, await lab.speech(text, voice), 1500);
      const speech = at[1]!;
      const { starts, ends, events } = run(await line(pcm, noisy, codec));
      expect(events.map((e) => e.event.type)).toEqual(['speech_start', 'speech_end']);
      const start = starts[0]!;
      // Back-dated to within 80 ms of the true onset, and reported quickly after it (barge-in).
      expect(Math.abs(start.event.atMs - speech.startMs)).toBeLessThanOrEqual(80);
      expect(start.frameMs + 20 - speech.startMs).toBeLessThanOrEqual(160);
      const end = ends[0]!;
      expect(end.event.dropped).toBe(false);
      expect(Math.abs(end.event.atMs - speech.endMs)).toBeLessThanOrEqual(100);
      expect(end.event.durationMs).toBe(end.event.atMs - start.event.atMs);
      // The end is told once the hangover (700 ms) of silence has passed, not before.
      expect(end.frameMs + 20 - end.event.atMs).toBeGreaterThanOrEqual(700);
      expect(end.frameMs + 20 - end.event.atMs).toBeLessThanOrEqual(720);
    },
  );

  it('hands over the pre-roll: the audio from 240 ms before the onset up to the frame that started it', async () => {
    const { pcm } = timeline(1000, await lab.speech('Hello?', { engine: 'espeak-ng' }), 1000);
    const audio = await line(pcm, true, 'PCMU');
    const { starts } = run(audio);
    const { event, frameMs } = starts[0]!;
    const from = ((event.atMs - 240) * 8000) / 1000;
    const to = ((frameMs + 20) * 8000) / 1000;
    expect(event.preRoll).toEqual(audio.slice(from, to));
  });

  it('keeps a short pause inside one utterance and splits at a long one; setHangover changes which', async () => {
    const yes = await lab.speech('Yes.', { engine: 'espeak-ng' });
    const no = await lab.speech('No.', { engine: 'espeak-ng' });
    const shortPause = await line(timeline(500, yes, 400, no, 1500).pcm, true, 'PCMU');
    const longPause = await line(timeline(500, yes, 1200, no, 1500).pcm, true, 'PCMU');
    expect(run(shortPause).starts).toHaveLength(1);
    expect(run(longPause).starts).toHaveLength(2);
    const eager = new VoiceActivityDetector();
    eager.setHangover(250);
    const split = run(shortPause, eager);
    expect(split.starts).toHaveLength(2);
    expect(split.ends.every((e) => e.frameMs + 20 - e.event.atMs >= 250)).toBe(true);
  });

  it.each([
    [[1000], 0.5],
    [[440], 0.5],
    [[1400], 0.5],
    [[425], 0.3],
    [[350, 440], 0.3],
    [[440, 480], 0.3],
  ])('does not take a steady tone for speech (%o Hz at %f of full scale)', async (frequencies, vol) => {
    const { pcm } = timeline(500, await lab.tone(frequencies, 1500, vol), 1000);
    for (const codec of ['PCMU', 'PCMA'] as const) {
      expect(run(await line(pcm, true, codec)).events).toEqual([]);
    }
  });

  it('ignores a click, and drops a cough-length burst after reporting its start', async () => {
    const burst = await lab.noise(20, 0.5);
    const cough = await lab.noise(100, 0.5);
    expect(run(await line(timeline(500, burst, 1000).pcm, true, 'PCMU')).events).toEqual([]);
    const { starts, ends } = run(await line(timeline(500, cough, 1500).pcm, true, 'PCMU'));
    expect(starts).toHaveLength(1);
    expect(ends).toHaveLength(1);
    expect(ends[0]!.event.dropped).toBe(true);
    expect(ends[0]!.event.durationMs).toBeLessThan(150);
  });

  it('learns a noisy line: noise alone is not speech, speech over it is', async () => {
    const noise = await lab.noise(4000, 0.05);
    const { pcm, at } = timeline(1500, await lab.speech('Hello?', { engine: 'espeak-ng' }), 1500);
    expect(run(overG711(withNoise(new Int16Array(noise.length), noise))).events).toEqual([]);
    const { starts, vad } = run(overG711(withNoise(pcm, noise)));
    expect(starts).toHaveLength(1);
    expect(Math.abs(starts[0]!.event.atMs - at[1]!.startMs)).toBeLessThanOrEqual(80);
    // sox whitenoise at 0.05 of full scale measures about -39 dBFS.
    expect(vad.noiseFloorDb).toBeGreaterThan(-45);
    expect(vad.noiseFloorDb).toBeLessThan(-33);
  });

  it('forgets everything on reset and refuses frames that are not 20 ms', async () => {
    const { pcm } = timeline(300, await lab.speech('Hello?', { engine: 'espeak-ng' }));
    const vad = new VoiceActivityDetector();
    const { starts } = run(await line(pcm, true, 'PCMU'), vad);
    expect(starts).toHaveLength(1);
    expect(vad.inSpeech).toBe(true);
    vad.reset();
    expect(vad.inSpeech).toBe(false);
    expect(() => vad.push(new Int16Array(80), 0)).toThrow(RangeError);
    expect(() => vad.setHangover(-1)).toThrow(RangeError);
  });
});
