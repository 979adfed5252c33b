import type { CollectedDetail } from '@voice/shared/contracts';
import { describe, expect, it } from 'vitest';
import { calleeOf, parseName } from '../src/domain/conversation/callee';
import { localNow, parseDate, parseTime, parseWhen } from '../src/domain/conversation/dates';
import {
  coerceDetailValue,
  matchOption,
  parseDetail,
  parseEmail,
} from '../src/domain/conversation/detail-values';
import { fillPlaceholders, openingLine } from '../src/domain/conversation/flows';
import { ALWAYS_HEARD_PHRASES, intentOf, intentsIn } from '../src/domain/conversation/intents';
import { ToolCallAssembler, toolOutcome } from '../src/domain/conversation/llm-tools';
import { parseDigits, parseNumber } from '../src/domain/conversation/numbers';
import { questionFor, toSecondPerson } from '../src/domain/conversation/questions';
import { SentenceSplitter, speakable } from '../src/domain/conversation/sentences';
import { spokenDigits, spokenOption } from '../src/domain/conversation/spoken';

// Wednesday 4 June 2025, 15:00 UTC.
const NOW = new Date('2025-06-04T15:00:00Z');
const TODAY = localNow(NOW, null);

describe('intents from recognised words', () => {
  it.each([
    ['yes', 'yes'],
    ['yeah sure', 'yes'],
    ["that's right", 'yes'],
    ['nope', 'no'],
    ['no thank you', 'no'],
    ['not interested', 'not_interested'],
    ["no i'm not interested", 'not_interested'],
    ['call me back later', 'call_back'],
    ['can you call me tomorrow', 'call_back'],
    ['stop calling me', 'opt_out'],
    ['take me off your list', 'opt_out'],
    ['do not call this number again', 'opt_out'],
    ['wrong number', 'wrong_person'],
    ['no one by that name here', 'wrong_person'],
    ['who is this', 'question'],
    ['what is this about', 'question'],
    ['hello', 'greeting'],
    ['okay goodbye', 'goodbye'],
    ['bye', 'goodbye'],
  ])('"%s" is %s', (text, intent) => {
    expect(intentOf(text)).toBe(intent);
  });

  it('hears no yes in a decline and no intent at all in thanks or a plain answer', () => {
    expect(intentsIn('not sure')).toEqual([]);
    expect(intentsIn('thank you')).toEqual([]);
    expect(intentsIn('three hundred thousand')).toEqual([]);
  });

  it('gives the recogniser every phrase it understands', () => {
    expect(ALWAYS_HEARD_PHRASES).toEqual(
      expect.arrayContaining(['yes', 'stop calling me', 'thank you', 'not sure']),
    );
    expect(new Set(ALWAYS_HEARD_PHRASES).size).toBe(ALWAYS_HEARD_PHRASES.length);
  });
});

describe('numbers as people say them', () => {
  it.each<[string, number | null]>([
    ['three hundred fifty thousand', 350_000],
    ['three hundred and fifty thousand dollars', 350_000],
    ['350000', 350_000],
    ['about 350,000', 350_000],
    ['$1.2m', 1_200_000],
    ['one point five million', 1_500_000],
    ['half a million', 500_000],
    ['a hundred thousand', 100_000],
    ['twenty five', 25],
    ['one hundred and twenty five', 125],
    ['two thousand five hundred', 2_500],
    ['three', 3],
    ['none', null],
    ['i do not know', null],
  ])('"%s" -> %s', (text, value) => {
    expect(parseNumber(text)).toBe(value);
  });

  it('reads digits said one by one, in groups, doubled, with "oh" for zero', () => {
    expect(parseDigits('five five five oh one two three', 7)).toBe('5550123');
    expect(parseDigits('double five five twelve thirty four', 7)).toBe('5551234');
    expect(parseDigits('my number is 555-0100', 7)).toBe('5550100');
    expect(parseDigits('five five', 7)).toBeNull();
  });
});

describe('dates and times relative to now', () => {
  it.each<[string, string | null]>([
    ['today', '2025-06-04'],
    ['tomorrow', '2025-06-05'],
    ['the day after tomorrow', '2025-06-06'],
    ['next monday', '2025-06-09'],
    ['friday', '2025-06-06'],
    ['wednesday', '2025-06-11'],
    ['this wednesday', '2025-06-04'],
    ['june fifth', '2025-06-05'],
    ['the fifth of june', '2025-06-05'],
    ['june 20th', '2025-06-20'],
    ['july the twenty first', '2025-07-21'],
    ['may first', '2026-05-01'],
    ['in three days', '2025-06-07'],
    ['in two weeks', '2025-06-18'],
    ['february thirtieth', null],
    ['whenever', null],
  ])('"%s" -> %s', (text, iso) => {
    expect(parseDate(text, TODAY)).toBe(iso);
  });

  it('counts "tomorrow" from the callee\'s own day when the metadata gives a time zone', () => {
    // 15:00 UTC is already 00:00 on 5 June in Tokyo.
    const tokyo = localNow(NOW, 'Asia/Tokyo');
    expect(parseDate('tomorrow', tokyo)).toBe('2025-06-06');
    expect(localNow(NOW, 'Not/AZone')).toEqual(TODAY);
  });

  it.each<[string, string | null]>([
    ['ten thirty', '10:30'],
    ['three p m', '15:00'],
    ['three pm', '15:00'],
    ['noon', '12:00'],
    ['half past three', '15:30'],
    ['quarter to five', '16:45'],
    ['ten oh five', '10:05'],
    ['at nine', '09:00'],
    ['seven in the evening', '19:00'],
    ['eleven fifteen a m', '11:15'],
    ['three', '15:00'],
    ['some time', null],
  ])('"%s" -> %s', (text, hhmm) => {
    expect(parseTime(text)).toBe(hhmm);
  });

  it('takes the date and the time apart ("june fifth at three")', () => {
    expect(parseWhen('june fifth at three', TODAY)).toEqual({ date: '2025-06-05', time: '15:00' });
    expect(parseWhen('next monday at ten thirty', TODAY)).toEqual({ date: '2025-06-09', time: '10:30' });
    expect(parseWhen('friday', TODAY)).toEqual({ date: '2025-06-06', time: null });
  });
});

describe('names', () => {
  it.each<[string, string | null]>([
    ['my name is jordan', 'Jordan'],
    ['this is jordan', 'Jordan'],
    ['jordan speaking', 'Jordan'],
    ['jordan', 'Jordan'],
    ['hello this is pat', 'Pat'],
    ['it is sam lee', 'Sam Lee'],
    ["i'm busy", null],
    ['yes', null],
  ])('"%s" -> %s', (text, name) => {
    expect(parseName(text)).toBe(name);
  });

  it('reads the callee from the metadata, the top level before the contact columns', () => {
    expect(calleeOf({ name: 'Jordan Lee' })).toEqual({ firstName: 'Jordan', fullName: 'Jordan Lee' });
    expect(calleeOf({ contact: { first_name: 'Ana', last_name: 'Ruiz' } })).toEqual({
      firstName: 'Ana',
      fullName: 'Ana Ruiz',
    });
    expect(calleeOf({ name: 'x'.repeat(500) })).toEqual({ firstName: null, fullName: null });
    expect(calleeOf(null).firstName).toBeNull();
  });
});

const enumDetail = (name: string, options: string[]): CollectedDetail => ({
  name,
  type: 'enum',
  description: `The ${name}.`,
  required: true,
  options,
});

describe('details by type', () => {
  const timeline = ['within_1_month', '1_3_months', '3_6_months', 'over_6_months'];

  it.each<[string, string | null]>([
    ['one to three months', '1_3_months'],
    ['three to six months', '3_6_months'],
    ['within a month', 'within_1_month'],
    ['less than a month', 'within_1_month'],
    ['more than six months', 'over_6_months'],
    ['six months', null],
    ['soon', null],
  ])('timeline "%s" -> %s', (text, option) => {
    expect(matchOption(timeline, text)).toBe(option);
  });

  it('matches an option by its words, stems included, and refuses two at once', () => {
    const intents = ['buy', 'sell', 'rent', 'invest'];
    expect(matchOption(intents, 'sell')).toBe('sell');
    expect(matchOption(intents, 'i am selling my house')).toBe('sell');
    expect(matchOption(intents, 'renting')).toBe('rent');
    expect(matchOption(intents, 'buy or sell')).toBeNull();
    expect(matchOption(['paid_in_full', 'promise_to_pay', 'payment_plan'], 'a payment plan')).toBe(
      'payment_plan',
    );
  });

  it('parses each type and asks for the rest of a date-time heard in part', () => {
    const d = (type: CollectedDetail['type']): CollectedDetail => ({
      name: 'x',
      type,
      description: 'X.',
      required: true,
    });
    expect(parseDetail(d('number'), 'three hundred fifty thousand', TODAY)).toEqual({ value: 350_000 });
    expect(parseDetail(d('boolean'), 'yes i do', TODAY)).toEqual({ value: true });
    expect(parseDetail(d('boolean'), 'nope', TODAY)).toEqual({ value: false });
    expect(parseDetail(d('boolean'), 'not sure', TODAY)).toBeNull();
    expect(parseDetail(d('date'), 'next monday', TODAY)).toEqual({ value: '2025-06-09' });
    expect(parseDetail(d('datetime'), 'tomorrow at ten thirty', TODAY)).toEqual({
      value: '2025-06-05T10:30',
    });
    expect(parseDetail(d('datetime'), 'tomorrow', TODAY)).toEqual({
      partial: { date: '2025-06-05', time: null },
    });
    expect(parseDetail(d('phone'), 'plus one five five five oh one oh oh one nine nine', TODAY)).toEqual({
      value: '+15550100199',
    });
    expect(parseDetail(d('email'), 'jordan at example dot com', TODAY)).toEqual({
      value: 'jordan@example.com',
    });
    expect(parseDetail(d('string'), 'um downtown', TODAY)).toEqual({ value: 'downtown' });
    expect(parseDetail(d('string'), 'uh', TODAY)).toBeNull();
    expect(parseDetail({ ...d('string'), name: 'first_name' }, 'my name is jordan', TODAY)).toEqual({
      value: 'Jordan',
    });
    expect(parseEmail('j o r d a n at gmail dot com')).toBe('jordan@gmail.com');
  });

  it('fits values handed over by a model to the detail type, or refuses them', () => {
    const budget: CollectedDetail = { name: 'budget', type: 'number', description: 'B.', required: true };
    expect(coerceDetailValue(budget, '350000', TODAY)).toBe(350_000);
    expect(coerceDetailValue(budget, 'lots', TODAY)).toBeNull();
    expect(coerceDetailValue(enumDetail('intent', ['buy', 'sell']), 'selling', TODAY)).toBe('sell');
    expect(coerceDetailValue(enumDetail('intent', ['buy', 'sell']), 'fly', TODAY)).toBeNull();
    expect(coerceDetailValue({ ...budget, type: 'boolean' }, 'yes', TODAY)).toBe(true);
    expect(coerceDetailValue({ ...budget, type: 'string' }, { nested: true }, TODAY)).toBeNull();
    expect(coerceDetailValue({ ...budget, type: 'string' }, 'x'.repeat(10_000), TODAY)).toBeNull();
  });
});

describe('what the agent says', () => {
  it('turns a catalogue description into a question to the callee, offering enum options in words', () => {
    expect(questionFor(enumDetail('timeline', ['within_1_month', '1_3_months']))).toBe(
      'Could you give me the timeline? Would you say within one month or one to three months?',
    );
    expect(
      questionFor({
        name: 'intent',
        type: 'enum',
        description: 'What the lead wants to do.',
        required: true,
        options: ['buy', 'sell'],
      }),
    ).toBe('Could you tell me what you want to do? Would you say buy or sell?');
    expect(toSecondPerson('Whether a buyer already has mortgage pre-approval')).toBe(
      'Whether you already have mortgage pre-approval',
    );
  });

  it('fills placeholders from the metadata and greets a known callee by name', () => {
    const jordan = calleeOf({ name: 'Jordan Lee', city: 'Austin' });
    expect(fillPlaceholders('Hi {first_name}, calling about {city}.', jordan, { city: 'Austin' })).toBe(
      'Hi Jordan, calling about Austin.',
    );
    expect(fillPlaceholders('Hi {{name}}, this is Riley.', calleeOf(null), null)).toBe('Hi, this is Riley.');
    expect(openingLine('Hi, this is Riley from Acme Realty.', jordan, null)).toBe(
      'Hi Jordan, this is Riley from Acme Realty.',
    );
    expect(openingLine('This is Riley from Acme Realty.', jordan, null)).toBe(
      'Hi Jordan. This is Riley from Acme Realty.',
    );
    expect(openingLine('Hi, this is Riley.', calleeOf(null), null)).toBe('Hi, this is Riley.');
  });

  it('says options and numbers in words', () => {
    expect(spokenOption('1_3_months')).toBe('one to three months');
    expect(spokenOption('within_1_month')).toBe('within one month');
    expect(spokenDigits('+15550100199')).toBe('one, five five five, zero one zero, zero one nine nine');
    expect(spokenDigits('+442071234567')).toBe(
      'four four two, zero seven one, two three four, five six seven',
    );
  });
});

describe('streamed model output', () => {
  it('cuts sentences as they complete, not at abbreviations or decimals, and cleans them for speech', () => {
    const splitter = new SentenceSplitter();
    expect(splitter.push('Hi **Jordan**')).toEqual([]);
    expect(splitter.push('! Dr. Lee costs 3.5 per')).toEqual(['Hi Jordan!']);
    expect(splitter.push(' cent. Does that')).toEqual(['Dr. Lee costs 3.5 per cent.']);
    expect(splitter.push(' suit you? 👍')).toEqual(['Does that suit you?']);
    expect(splitter.flush()).toBeNull();
    expect(speakable('## Options\n- `1_3_months`, _soon_ [see](http://x)')).toBe(
      'Options - 1 3 months, soon see',
    );
  });

  it('puts tool calls together from pieces, with or without an index, within bounds', () => {
    const tools = new ToolCallAssembler();
    tools.add({ id: 'a', name: 'record_', arguments: '{"name":' });
    tools.add({ name: 'detail', arguments: '"budget","value":5}' });
    tools.add({ id: 'b', name: 'end_call', arguments: '{"reason":"hung up happy"}' });
    tools.add({ index: 7, id: 'c', name: 'record_detail', arguments: 'x'.repeat(3000) });
    const calls = tools.calls();
    expect(calls.map((c) => [c.name, c.overflow])).toEqual([
      ['record_detail', false],
      ['end_call', false],
      ['record_detail', true],
    ]);
    const outcome = toolOutcome(
      calls,
      [{ name: 'budget', type: 'number', description: 'B.', required: true }],
      TODAY,
    );
    expect(outcome.actions).toEqual([{ type: 'record_detail', name: 'budget', value: 5 }]);
    expect(outcome.end).toBe('completed');
    expect(outcome.rejected).toHaveLength(1);
  });
});
