import { envelope } from '@voice/shared/testing/sip';
import { describe, expect, it } from 'vitest';
import { synthesize, TtsError } from '../src/media';

const SENTENCE = 'Hello, this is the voice platform calling about your appointment tomorrow.';

describe('speech synthesis', () => {
  it.each([['espeak-ng'], ['flite']] as const)(
    '%s speaks a sentence as non-silent 8 kHz audio of plausible length',
    async (engine) => {
      const pcm = await synthesize(SENTENCE, { engines: [engine] });
      const seconds = pcm.length / 8000;
      // About a dozen words: between two and ten seconds at any sane speaking rate.
      expect(seconds).toBeGreaterThan(2);
      expect(seconds).toBeLessThan(10);
      const loud = envelope(pcm).filter((rms) => rms > 500).length;
      expect(loud / envelope(pcm).length).toBeGreaterThan(0.3);
    },
  );

  it('falls back to the next engine when the first one fails', async () => {
    const pcm = await synthesize('Good morning.', { engines: ['espeak-ng', 'flite'], voice: 'slt' });
    // espeak-ng has no voice called "slt": the audio comes from flite.
    expect(pcm.length).toBeGreaterThan(4000);
  });

  it('refuses empty text and reports every engine that failed', async () => {
    await expect(synthesize('  \n ')).rejects.toThrow(TtsError);
    await expect(synthesize('Hello', { engines: ['espeak-ng'], voice: 'no-such-voice' })).rejects.toThrow(
      /espeak-ng/,
    );
  });
});
