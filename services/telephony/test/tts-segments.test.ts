import { describe, expect, it } from 'vitest';
import { speechSegments } from '../src/speech/tts';

describe('speech segments', () => {
  it('cuts sentences, with the first clause of the first alone', () => {
    expect(
      speechSegments(
        'Hello, this is the voice platform calling about your appointment tomorrow. Is ten still good? Thanks!',
        'en',
      ),
    ).toEqual([
      'Hello,',
      'this is the voice platform calling about your appointment tomorrow.',
      'Is ten still good?',
      'Thanks!',
    ]);
  });

  it('joins sentences up to a length, the small first piece alone or not', () => {
    const text = 'Hello, this is Sam from the clinic about your visit. One. Two. Three. Four is long enough.';
    expect(speechSegments(text, 'en', { firstChars: 40, maxChars: 240, joinChars: 20 })).toEqual([
      'Hello,',
      'this is Sam from the clinic about your visit.',
      'One. Two. Three.',
      'Four is long enough.',
    ]);
    expect(speechSegments(text, 'en', { firstChars: 0, maxChars: 240, joinChars: 1000 })).toEqual([text]);
  });

  it('keeps a short first sentence whole', () => {
    expect(speechSegments('Hi, Sam. How are you?', 'en')).toEqual(['Hi, Sam.', 'How are you?']);
  });

  it('does not cut after a title', () => {
    expect(speechSegments('This is Dr. Smith calling. Mrs. Jones asked me to.', 'en')).toEqual([
      'This is Dr. Smith calling.',
      'Mrs. Jones asked me to.',
    ]);
  });

  it('cuts a long sentence at clauses, then between words, within the bound', () => {
    const clauses = Array.from({ length: 12 }, (_, i) => `clause number ${i} goes here`).join(', ');
    const words = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    for (const text of [clauses, words]) {
      const pieces = speechSegments(text, 'en', { firstChars: 60, maxChars: 100 });
      expect(pieces.length).toBeGreaterThan(3);
      for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(100);
      expect(pieces.join(' ').replace(/\s+/g, ' ')).toBe(text);
    }
  });

  it('cuts text without spaces at the bound, never inside a character', () => {
    // A letter outside the basic plane: two UTF-16 code units each.
    const text = '\u{20000}'.repeat(150);
    const pieces = speechSegments(`${text}a`, 'ja', { firstChars: 60, maxChars: 101 });
    expect(pieces.join('')).toBe(`${text}a`);
    // No piece starts or ends inside a surrogate pair.
    for (const piece of pieces) expect(piece).not.toMatch(/\p{Cs}/u);
  });

  it('cuts Japanese at its own full stops', () => {
    expect(speechSegments('こんにちは。元気ですか？はい', 'ja')).toEqual([
      'こんにちは。',
      '元気ですか？',
      'はい',
    ]);
  });

  it('drops what cannot be spoken and control characters', () => {
    expect(speechSegments(' ... \n\u0000 ', 'en')).toEqual([]);
    expect(speechSegments('One.\u0007 Two. 🙂 ... Three.', 'en')).toEqual(['One.', 'Two.', 'Three.']);
    expect(speechSegments('🙂. Four.', 'en')).toEqual(['Four.']);
  });
});
