import { describe, expect, it } from 'vitest';
import { INTENTS } from '../src/conversation/types';
import { buildGrammar, type Lexicon, spokenTokens } from '../src/speech/stt';
import { spellDigits } from '../src/speech/stt/domain/spell-number';
import { COMMON_NAMES, INTENT_PHRASES } from '../src/speech/stt/domain/vocabulary';
import { toWords } from '../src/speech/stt/domain/words';

// Pure tests of the grammar builder: a lexicon that knows every word but a few stands in for the
// pocketsphinx dictionary (stt-pocketsphinx.test.ts checks the real one).

const MISSING = new Set(['xyzzy', 'quux', 'tonight', 'kayla', 'hoa']);
const lexicon: Lexicon = { has: (word) => /^[a-z']+$/.test(word) && !MISSING.has(word) };
const none = { slots: [], phrases: [] } as const;

/** The grammar's rules: name -> right-hand side. */
function rules(jsgf: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of jsgf.split('\n')) {
    const match = /^(?:public )?<([a-z_]+)> = (.*);$/.exec(line);
    if (match) found.set(match[1]!, match[2]!);
  }
  return found;
}

describe('the grammar of a turn', () => {
  it('is JSGF with one public rule, every referenced rule defined, and lists exactly its words', () => {
    const grammar = buildGrammar(
      {
        expect: {
          slots: ['yes_no', 'number', 'date', 'time', 'digits', 'name'],
          phrases: ['three bedrooms'],
        },
        names: ['Jordan Smith'],
      },
      lexicon,
    );
    const lines = grammar.jsgf.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '#JSGF V1.0;',
      'grammar turn;',
      expect.stringMatching(/^public <utterance> = /),
    ]);
    expect(lines.filter((line) => line.startsWith('public'))).toHaveLength(1);
    const defined = rules(grammar.jsgf);
    expect(defined.size).toBe(lines.length - 2);
    const referenced = [...grammar.jsgf.matchAll(/<([a-z_]+)>/g)].map((m) => m[1]!);
    for (const name of referenced) expect(defined.has(name), name).toBe(true);
    const words = new Set(
      [...defined.values()].flatMap((rhs) => rhs.replace(/<[a-z_]+>/g, ' ').split(/[\s()[\]|*+]+/)),
    );
    words.delete('');
    expect(grammar.words).toEqual([...words].sort());
  });

  it('always holds every intent phrase, and no slot that is not expected', () => {
    const grammar = buildGrammar({ expect: none, names: [] }, lexicon);
    const defined = rules(grammar.jsgf);
    for (const intent of INTENTS) {
      expect(defined.get(`intent_${intent}`)?.split(' | ')).toEqual(INTENT_PHRASES[intent]);
    }
    for (const phrase of [
      'please stop calling me',
      'wrong number',
      'can you call back tomorrow',
      "i'm not interested",
    ]) {
      expect(grammar.jsgf).toContain(phrase);
    }
    for (const slot of ['number', 'date', 'time', 'digits', 'yes_no', 'name'])
      expect(defined.has(slot)).toBe(false);
    expect(grammar.unknown).toEqual([]);
  });

  it('adds the expected slots with the sentences around them', () => {
    const defined = rules(
      buildGrammar({ expect: { slots: ['number', 'date', 'time'], phrases: [] }, names: [] }, lexicon).jsgf,
    );
    expect(defined.get('number_answer')).toBe('[<number_answer_before>] <number> [<number_answer_after>]');
    expect(defined.get('number_answer_after')).toContain('dollars');
    expect(defined.get('scale')).toBe('thousand | million | billion');
    expect(defined.get('when_answer')).toBe(
      '[<when_answer_before>] (<date> [[at] <time>] | <time>) [<when_answer_after>]',
    );
    expect(defined.get('when_answer_before')).toContain('call me back');
    expect(defined.get('date')).toContain('[on] [this | next] <weekday>');
    expect(defined.get('time')).toContain('noon');
    expect(defined.get('answer')).toBe('<number_answer> | <when_answer>');
    expect(defined.get('talk')).not.toContain('answer');
    expect(defined.has('digits')).toBe(false);
  });

  it('hears the names of the call in sentences on any turn, alone and with common names only when a name is expected', () => {
    const names = ['Jordan Smith'];
    const anyTurn = rules(buildGrammar({ expect: none, names }, lexicon).jsgf);
    expect(anyTurn.get('name')).toBe('jordan smith | jordan | smith');
    expect(anyTurn.get('name_answer')).toBe(
      '<name_answer_before> <name> [<name_answer_after>] | <name> <name_answer_after>',
    );
    expect(anyTurn.get('name_answer_before')).toContain('my name is');
    expect(anyTurn.get('utterance')).toBe('<talk> <talk>* [<answer> <talk>*] | <answer> <talk>*');

    const nameTurn = rules(buildGrammar({ expect: { slots: ['name'], phrases: [] }, names }, lexicon).jsgf);
    expect(nameTurn.get('utterance')).toBe(
      '<talk> <talk>* [<answer> <talk>*] | <answer> <talk>* | [<filler>] <name>',
    );
    const heard = nameTurn.get('name')!.split(' | ');
    expect(heard.slice(0, 3)).toEqual(['jordan smith', 'jordan', 'smith']);
    expect(heard).toContain('mary');
    expect(heard).not.toContain('kayla');
    expect(heard.length).toBeGreaterThan(150);
    expect(new Set(heard).size).toBe(heard.length);
  });

  it('never starts an alternative with a loop (sphinxbase would link it back into its siblings)', () => {
    const grammar = buildGrammar(
      { expect: { slots: ['yes_no', 'number', 'date', 'time', 'digits', 'name'], phrases: [] }, names: [] },
      lexicon,
    );
    for (const [name, rhs] of rules(grammar.jsgf)) {
      for (const alternative of rhs.split(' | ')) {
        expect(alternative, name).not.toMatch(/^(<[a-z_]+>|\([^)]*\))[+*]/);
      }
    }
  });

  it('spells out and drops what the dictionary cannot say, and says which words those were', () => {
    const grammar = buildGrammar(
      {
        expect: {
          slots: ['date'],
          phrases: ['3 Bedrooms', 'HOA fees', 'Quux', 'xyzzy lane', '$1,500 a month'],
        },
        names: ['Xyzzy', 'Ann'],
      },
      lexicon,
    );
    const defined = rules(grammar.jsgf);
    expect(defined.get('phrase')).toBe(
      'three bedrooms | h o a fees | lane | one thousand five hundred dollars a month',
    );
    expect(defined.get('phrase_answer')).toBe('[<phrase_answer_before>] <phrase> [<phrase_answer_after>]');
    expect(defined.get('name')).toBe('ann');
    expect(defined.get('date')).toMatch(/^today \| tomorrow/);
    expect(defined.get('date')).not.toContain('tonight');
    expect(grammar.unknown).toEqual(['quux', 'tonight', 'xyzzy']);
  });

  it('drops a rule left without alternatives, and every alternative that needs it', () => {
    const grammar = buildGrammar({ expect: none, names: ['Quux'] }, lexicon);
    expect(grammar.jsgf).not.toContain('<name');
    expect(grammar.jsgf).not.toContain('<answer>');
    expect(rules(grammar.jsgf).get('utterance')).toBe('<talk> <talk>*');
    expect(grammar.unknown).toEqual(['quux']);
  });

  it('bounds what one request may add', () => {
    const phrases = Array.from({ length: 1000 }, (_, i) => `option ${spellDigits(String(i)).join(' ')}`);
    const grammar = buildGrammar({ expect: { slots: [], phrases }, names: ['a'.repeat(10_000)] }, lexicon);
    expect(rules(grammar.jsgf).get('phrase')!.split(' | ')).toHaveLength(200);
    expect(grammar.jsgf.length).toBeLessThan(20_000);
  });

  it('is the same for the same request', () => {
    const request = { expect: { slots: ['date', 'name'] as const, phrases: ['blue'] }, names: ['Jo'] };
    expect(buildGrammar(request, lexicon)).toEqual(buildGrammar(request, lexicon));
  });
});

describe('text as spoken words', () => {
  it('spells numbers as people say them, and long digit strings digit by digit', () => {
    expect(spellDigits('0')).toEqual(['zero']);
    expect(spellDigits('350000').join(' ')).toBe('three hundred fifty thousand');
    expect(spellDigits('2019').join(' ')).toBe('two thousand nineteen');
    expect(spellDigits('1000001').join(' ')).toBe('one million one');
    expect(spellDigits('007').join(' ')).toBe('zero zero seven');
    expect(spellDigits('5551234567890').join(' ')).toBe(
      'five five five one two three four five six seven eight nine zero',
    );
  });

  it('turns prices, decimals, times and symbols into words', () => {
    expect(spokenTokens('$350,000 or 2.5%?').join(' ')).toBe(
      'three hundred fifty thousand dollars or two point five percent',
    );
    expect(spokenTokens('At 10:30 a.m., not 9:00 or 9:05').join(' ')).toBe(
      "At ten thirty a m not nine o'clock or nine oh five",
    );
    expect(spokenTokens('That’s “great” & Bob’s').join(' ')).toBe("That's great and Bob's");
  });

  it('keeps known words, spells unknown short acronyms, reports the rest', () => {
    expect(toWords('The HOA of Xyzzy Quux', lexicon)).toEqual({
      words: ['the', 'h', 'o', 'a', 'of'],
      unknown: ['xyzzy', 'quux'],
    });
  });

  it('every standard name is a plain lower-case word', () => {
    for (const name of COMMON_NAMES) expect(name).toMatch(/^[a-z]+$/);
  });
});
