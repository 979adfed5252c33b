import { describe, expect, it } from 'vitest';
import { planVoice, voiceGender } from '../src/speech/tts';

const espeak = (voice: string) => ({ engine: 'espeak-ng', voice });
const flite = (voice: string) => ({ engine: 'flite', voice });

describe('voice mapping', () => {
  it.each([
    // English: flite first (recognised best), espeak-ng in the voice's accent and gender after.
    ['aria', 'en', [flite('slt'), espeak('en-us+f2')]],
    ['davis', 'en', [flite('rms'), espeak('en-us+m3')]],
    ['ryan', 'en', [flite('awb'), espeak('en-gb+m3')]],
    ['sonia', 'en', [flite('slt'), espeak('en-gb+f2')]],
    ['natasha', 'en-AU', [flite('slt'), espeak('en-gb+f2')]],
    ['jenny', 'en-GB', [flite('slt'), espeak('en-gb+f2')]],
    ['river', 'en', [flite('slt'), espeak('en-us')]],
    // Other languages: espeak-ng only, by language and region.
    ['jorge', 'es-MX', [espeak('es-419+m3')]],
    ['jorge', 'es', [espeak('es-419+m3')]],
    ['elvira', 'es', [espeak('es+f2')]],
    ['denise', 'fr', [espeak('fr-fr+f2')]],
    ['sylvie', 'fr-CA', [espeak('fr-fr+f2')]],
    ['lukas', 'de', [espeak('de+m3')]],
    ['francisca', 'pt-BR', [espeak('pt-br+f2')]],
    ['raquel', 'pt-PT', [espeak('pt+f2')]],
    ['xiaoxiao', 'zh-CN', [espeak('cmn+f2')]],
    ['dmitry', 'ru', [espeak('ru+m3')]],
  ] as const)('%s speaking %s', (voice, language, attempts) => {
    expect(planVoice(voice, language)).toEqual({ language, attempts });
  });

  it('gives an unknown or absent voice the language default', () => {
    expect(planVoice('no-such-voice', 'en').attempts).toEqual([flite('slt'), espeak('en-us')]);
    expect(planVoice(null, 'de').attempts).toEqual([espeak('de')]);
    expect(planVoice('toString', 'it').attempts).toEqual([espeak('it')]);
    expect(voiceGender('constructor')).toBeUndefined();
  });

  it('reads codes in any case and with underscores', () => {
    expect(planVoice('ARIA', 'PT_br').attempts).toEqual([espeak('pt-br+f2')]);
  });

  it('hands a code not in the table to espeak-ng as it is, then its language alone', () => {
    expect(planVoice(null, 'fi').attempts).toEqual([espeak('fi')]);
    expect(planVoice('katja', 'fi-FI').attempts).toEqual([espeak('fi-fi+f2'), espeak('fi+f2')]);
    // A known language with an unknown region speaks the language.
    expect(planVoice(null, 'de-AT').attempts).toEqual([espeak('de')]);
  });

  it('knows the gender of the catalogue voices', () => {
    expect(voiceGender('aria')).toBe('female');
    expect(voiceGender('roger')).toBe('male');
    expect(voiceGender('river')).toBe('neutral');
    expect(voiceGender(null)).toBeUndefined();
  });
});
