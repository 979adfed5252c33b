import { describe, expect, it } from 'vitest';
import { BeepDetector, type BeepEvent } from '../src/media/analysis';
import { collect, overG711, timeline, useAudioLab, type Voice, withNoise } from './analysis-audio';

// The beep detector on sox tones and on real speech (espeak-ng, flite), through G.711 with line noise.

const lab = useAudioLab();

function beeps(pcm: Int16Array, detector = new BeepDetector()): { event: BeepEvent; frameMs: number }[] {
  return collect(pcm, (frame, atMs) => detector.push(frame, atMs));
}

async function onLine(pcm: Int16Array, codec: 'PCMU' | 'PCMA' = 'PCMU'): Promise<Int16Array> {
  return overG711(withNoise(pcm, await lab.noise(1000)), codec);
}

const VOICES: Voice[] = [
  { engine: 'espeak-ng' },
  { engine: 'espeak-ng', voice: 'en-us+f3' },
  { engine: 'flite', voice: 'slt' },
  { engine: 'flite', voice: 'kal' },
  { engine: 'flite', voice: 'awb' },
];
const PHRASES = [
  'Hello?',
  "Hi, you've reached Jordan, I can't take your call right now, please leave a message after the tone",
  'Nooo. Well, maybe tomorrow morning.',
  'Mmm. Ooooh, wheee.',
];

describe('beep detector', () => {
  it.each([
    [1000, 'PCMU'],
    [440, 'PCMA'],
    [1400, 'PCMU'],
    [1975, 'PCMA'],
  ] as const)('finds a %i Hz beep (%s) where it is, when it ends', async (hz, codec) => {
    const { pcm, at } = timeline(1000, await lab.tone([hz], 500), 1000);
    const found = beeps(await onLine(pcm, codec));
    expect(found).toHaveLength(1);
    const { event, frameMs } = found[0]!;
    expect(Math.abs(event.startMs - at[1]!.startMs)).toBeLessThanOrEqual(20);
    expect(Math.abs(event.endMs - at[1]!.endMs)).toBeLessThanOrEqual(20);
    expect(Math.abs(event.frequencyHz - hz)).toBeLessThanOrEqual(hz * 0.01);
    // Told within two frames of its end (one lost packet may not end it).
    expect(frameMs + 20 - event.endMs).toBeLessThanOrEqual(40);
  });

  it('finds the beep after a greeting, and nothing in the greeting', async () => {
    const greeting = await lab.speech(PHRASES[1]!, { engine: 'flite', voice: 'slt' });
    const { pcm, at } = timeline(500, greeting, 400, await lab.tone([1000], 300, 0.3), 1000);
    const found = beeps(await onLine(pcm));
    expect(found.map((f) => f.event.frequencyHz)).toEqual([1000]);
    expect(Math.abs(found[0]!.event.endMs - at[3]!.endMs)).toBeLessThanOrEqual(20);
  });

  it('keeps one beep across a lost packet', async () => {
    const { pcm, at } = timeline(500, await lab.tone([1000], 600), 500);
    const audio = await onLine(pcm);
    audio.fill(0, 8 * 800, 8 * 820); // one 20 ms frame of silence in the middle, as playout fills a loss
    const found = beeps(audio);
    expect(found).toHaveLength(1);
    expect(found[0]!.event.startMs).toBe(at[1]!.startMs);
    expect(found[0]!.event.endMs).toBe(at[1]!.endMs);
  });

  it.each([
    ['too short a tone (60 ms)', [1000], 60],
    ['a tone below the band (300 Hz)', [300], 500],
    ['a tone above the band (2500 Hz)', [2500], 500],
    ['a dial tone (350 + 440 Hz)', [350, 440], 800],
  ])('ignores %s', async (_name, frequencies, millis) => {
    const { pcm } = timeline(500, await lab.tone(frequencies, millis), 500);
    expect(beeps(await onLine(pcm))).toEqual([]);
  });

  it('does not take speech for a beep (every voice and phrase, both codecs)', async () => {
    let seconds = 0;
    for (const voice of VOICES) {
      for (const phrase of PHRASES) {
        const speech = await lab.speech(phrase, voice);
        for (const codec of ['PCMU', 'PCMA'] as const) {
          seconds += speech.length / 8000;
          expect(beeps(await onLine(speech, codec)), `${voice.engine} ${voice.voice} ${phrase}`).toEqual([]);
        }
      }
    }
    expect(seconds).toBeGreaterThan(60);
  });

  it('refuses a band outside the telephone band', () => {
    expect(() => new BeepDetector({ minHz: 2000, maxHz: 1000 })).toThrow(RangeError);
    expect(() => new BeepDetector({ maxHz: 5000 })).toThrow(RangeError);
  });
});
