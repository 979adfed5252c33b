import type { CollectedDetail, SipConversation } from '@voice/shared/contracts';
import { describe, expect, it } from 'vitest';
import { RulesBrain } from '../src/conversation/rules-brain';
import type {
  BrainAction,
  BrainContext,
  BrainInput,
  BrainSession,
  ConversationLine,
} from '../src/conversation/types';

// Whole conversations scripted as inputs, checked against the rule brain's actions turn by turn.

const LEAD_QUALIFIER: CollectedDetail[] = [
  {
    name: 'intent',
    type: 'enum',
    description: 'What the lead wants to do.',
    required: true,
    options: ['buy', 'sell', 'rent', 'invest'],
  },
  {
    name: 'budget',
    type: 'number',
    description: 'Maximum budget, or expected sale price for sellers.',
    required: true,
  },
  {
    name: 'timeline',
    type: 'enum',
    description: 'When the lead wants to move.',
    required: true,
    options: ['within_1_month', '1_3_months', '3_6_months', 'over_6_months'],
  },
  { name: 'bedrooms', type: 'number', description: 'Minimum number of bedrooms.', required: false },
  {
    name: 'mortgage_pre_approved',
    type: 'boolean',
    description: 'Whether a buyer already has mortgage pre-approval.',
    required: false,
  },
  {
    name: 'email',
    type: 'email',
    description: 'Email address to send more information to.',
    required: false,
  },
];

function context(overrides: Partial<SipConversation> = {}, flows: Partial<BrainContext> = {}): BrainContext {
  return {
    conversation: {
      agent_name: 'Riley',
      agent_type: 'real_estate_lead_qualifier',
      goal: 'Find out what the lead wants, their budget and timeline, and whether they are ready to talk to an agent.',
      prompt: 'You are Riley.',
      ai_model: 'gpt-4o-mini',
      collects: LEAD_QUALIFIER,
      metadata: { name: 'Jordan Lee' },
      max_duration_seconds: 300,
      ...overrides,
    },
    language: 'en',
    start_flow: 'Hi, this is Riley from Acme Realty.',
    end_flow: 'Thanks for your time, goodbye!',
    source_number: '+15550100199',
    // Wednesday 4 June 2025, 15:00 UTC.
    now: new Date('2025-06-04T15:00:00Z'),
    ...flows,
  };
}

const said = (text: string): BrainInput => ({ type: 'utterance', text, confidence: 0.8, interrupted: false });

async function all(actions: AsyncIterable<BrainAction>): Promise<BrainAction[]> {
  const out: BrainAction[] = [];
  for await (const action of actions) out.push(action);
  return out;
}

/** A call in progress: each turn's actions, and the lines as the engine would keep them. */
class Call {
  readonly lines: ConversationLine[] = [];
  readonly session: BrainSession;
  constructor(ctx: BrainContext) {
    this.session = new RulesBrain().start(ctx);
  }
  async open(): Promise<BrainAction[]> {
    return this.keep(await all(this.session.open()));
  }
  async turn(input: BrainInput | string): Promise<BrainAction[]> {
    const i = typeof input === 'string' ? said(input) : input;
    if (i.type === 'utterance') this.lines.push({ role: 'user', text: i.text });
    return this.keep(await all(this.session.respond(i, this.lines)));
  }
  private keep(actions: BrainAction[]): BrainAction[] {
    for (const a of actions) if (a.type === 'say') this.lines.push({ role: 'agent', text: a.text });
    return actions;
  }
}

const speech = (actions: readonly BrainAction[]) =>
  actions
    .filter((a) => a.type === 'say')
    .map((a) => a.text)
    .join(' ');
const records = (actions: readonly BrainAction[]) =>
  Object.fromEntries(actions.flatMap((a) => (a.type === 'record_detail' ? [[a.name, a.value]] : [])));
const ending = (actions: readonly BrainAction[]) => actions.find((a) => a.type === 'end_call');

/** Every turn that does not end the call ends with what to expect next. */
function expectsNext(actions: readonly BrainAction[]) {
  const last = actions.at(-1);
  if (last?.type !== 'expect') throw new Error(`turn ends with ${JSON.stringify(last)}`);
  return last.expect;
}

describe('the rule brain holds a conversation', () => {
  it('confirms identity, walks the required details then a bounded number of optional ones, and closes', async () => {
    const call = new Call(context());
    const open = await call.open();
    expect(speech(open)).toBe('Hi Jordan, this is Riley from Acme Realty. Am I speaking with Jordan?');
    expect(expectsNext(open)).toEqual({ slots: ['yes_no', 'name'], phrases: ['jordan', 'this is jordan'] });

    const identity = await call.turn('yes this is jordan');
    expect(speech(identity)).toBe(
      'Thanks, Jordan. Could you tell me what you want to do? Would you say buy, sell, rent or invest?',
    );
    expect(expectsNext(identity)).toEqual({ slots: [], phrases: ['buy', 'sell', 'rent', 'invest'] });

    const intent = await call.turn('i want to sell');
    expect(records(intent)).toEqual({ intent: 'sell' });
    expect(speech(intent)).toMatch(/^Got it, sell\. Could you give me the maximum budget/);
    expect(expectsNext(intent).slots).toEqual(['number']);

    const budget = await call.turn('three hundred fifty thousand dollars');
    expect(records(budget)).toEqual({ budget: 350_000 });
    expect(speech(budget)).toMatch(
      /^Thanks, 350,000\. Could you tell me when you want to move\? Would you say/,
    );
    expect(expectsNext(budget).phrases).toContain('one to three months');

    const timeline = await call.turn('one to three months');
    expect(records(timeline)).toEqual({ timeline: '1_3_months' });
    expect(speech(timeline)).toMatch(/minimum number of bedrooms/);

    const bedrooms = await call.turn('three');
    expect(records(bedrooms)).toEqual({ bedrooms: 3 });
    expect(speech(bedrooms)).toMatch(/Could you tell me whether you already have mortgage pre-approval\?$/);
    expect(expectsNext(bedrooms).slots).toEqual(['yes_no']);

    // Two optional details asked: the third (email) is left out and the call closes.
    const last = await call.turn('yes');
    expect(records(last)).toEqual({ mortgage_pre_approved: true });
    expect(speech(last)).toBe("Got it. That's everything I needed. Thanks for your time, goodbye!");
    expect(ending(last)).toEqual({ type: 'end_call', reason: 'completed' });
    expect(last.at(-1)?.type).toBe('end_call');

    const outcome = await call.session.outcome(call.lines, 'completed');
    expect(outcome).toEqual({
      collected: {
        intent: 'sell',
        budget: 350_000,
        timeline: '1_3_months',
        bedrooms: 3,
        mortgage_pre_approved: true,
      },
      opted_out: false,
      sentiment: 'positive',
      summary:
        'Riley (real estate lead qualifier) spoke with Jordan Lee. Collected: intent sell, budget 350,000, timeline one to three months, bedrooms 3 and mortgage pre approved yes. The conversation was completed.',
    });
    // Nothing more after the end.
    expect(await call.turn('hello')).toEqual([]);
  });

  it('asks the name first when the metadata has none and a detail wants it, then uses it', async () => {
    const call = new Call(
      context({
        metadata: null,
        collects: [
          { name: 'first_name', type: 'string', description: 'First name.', required: true },
          LEAD_QUALIFIER[0]!,
        ],
      }),
    );
    const open = await call.open();
    expect(speech(open)).toBe('Hi, this is Riley from Acme Realty. May I have your name, please?');
    expect(expectsNext(open).slots).toEqual(['name']);
    const name = await call.turn('my name is jordan');
    expect(records(name)).toEqual({ first_name: 'Jordan' });
    expect(speech(name)).toMatch(/^Thanks, Jordan\. Could you tell me what you want to do\?/);
    const done = await call.turn('buy');
    expect(ending(done)?.type).toBe('end_call');
    const outcome = await call.session.outcome(call.lines, 'completed');
    expect(outcome.summary).toMatch(/^Riley \(real estate lead qualifier\) spoke with Jordan\./);
  });

  it('confirms a value the metadata already holds instead of asking for it', async () => {
    const call = new Call(
      context({ metadata: { name: 'Jordan', email: 'jordan@example.com' }, collects: [LEAD_QUALIFIER[5]!] }),
    );
    await call.open();
    const ask = await call.turn('yes');
    expect(speech(ask)).toBe('Thanks, Jordan. I have jordan@example.com as your email. Is that still right?');
    expect(expectsNext(ask).slots).toContain('yes_no');
    const confirmed = await call.turn('yes that is right');
    expect(records(confirmed)).toEqual({ email: 'jordan@example.com' });
  });

  it('opt-out: confirms the removal, opts out, closes', async () => {
    const call = new Call(
      context({
        collects: [
          ...LEAD_QUALIFIER,
          {
            name: 'do_not_call',
            type: 'boolean',
            description: 'Whether the prospect asked not to be called again.',
            required: true,
          },
        ],
      }),
    );
    await call.open();
    await call.turn('yes');
    const turn = await call.turn('please take me off your list');
    expect(turn.map((a) => a.type)).toEqual(['say', 'opt_out', 'record_detail', 'say', 'end_call']);
    expect(speech(turn)).toBe(
      "Of course. I've taken your number off our list, and we won't call you again. Thanks for your time, goodbye!",
    );
    expect(records(turn)).toEqual({ do_not_call: true });
    expect(ending(turn)).toEqual({ type: 'end_call', reason: 'opted_out' });
    const outcome = await call.session.outcome(call.lines, 'opted_out');
    expect(outcome.opted_out).toBe(true);
    expect(outcome.sentiment).toBe('negative');
    expect(outcome.summary).toMatch(/The callee asked not to be called again\.$/);
  });

  it('not interested: a polite close', async () => {
    const call = new Call(context());
    await call.open();
    await call.turn('yes');
    const turn = await call.turn("no i'm not interested");
    expect(speech(turn)).toBe('I understand, thanks for letting me know. Thanks for your time, goodbye!');
    expect(ending(turn)).toEqual({ type: 'end_call', reason: 'not_interested' });
    expect((await call.session.outcome(call.lines, 'not_interested')).sentiment).toBe('negative');
  });

  it('call back: records when, says it back, closes', async () => {
    const call = new Call(context());
    await call.open();
    const turn = await call.turn("i'm busy call me back tomorrow at three");
    expect(records(turn)).toEqual({ callback_time: '2025-06-05T15:00' });
    expect(speech(turn)).toBe(
      "Of course, we'll call you back on Thursday, June 5 at 3 PM. Thanks for your time, goodbye!",
    );
    expect(ending(turn)).toEqual({ type: 'end_call', reason: 'call_back' });
    const outcome = await call.session.outcome(call.lines, 'call_back');
    expect(outcome.collected).toEqual({ callback_time: '2025-06-05T15:00' });
    expect(outcome.summary).toMatch(/asked to be called back \(2025-06-05T15:00\)\.$/);
  });

  it('call back without a time closes without recording one', async () => {
    const call = new Call(context());
    await call.open();
    const turn = await call.turn('call me later');
    expect(records(turn)).toEqual({});
    expect(ending(turn)).toEqual({ type: 'end_call', reason: 'call_back' });
  });

  it.each(['wrong number', 'no', 'this is sam'])(
    'wrong person ("%s"): apologises and closes',
    async (text) => {
      const call = new Call(context());
      await call.open();
      const turn = await call.turn(text);
      expect(speech(turn)).toBe("I'm sorry for the trouble. Have a good day, goodbye.");
      expect(ending(turn)).toEqual({ type: 'end_call', reason: 'wrong_person' });
      expect((await call.session.outcome(call.lines, 'wrong_person')).summary).toMatch(
        /reached someone else/,
      );
    },
  );

  it('a question: who and why, then the pending question again', async () => {
    const call = new Call(context());
    await call.open();
    const turn = await call.turn('who is this');
    expect(speech(turn)).toBe(
      "This is Riley. I'm calling to find out what you want, your budget and timeline, and whether you are ready to talk to an agent. Am I speaking with Jordan?",
    );
    expect(expectsNext(turn).slots).toEqual(['yes_no', 'name']);
  });

  it('silence: first a reprompt with the question, then a polite goodbye', async () => {
    const call = new Call(context());
    await call.open();
    await call.turn('yes');
    const first = await call.turn({ type: 'silence', count: 1 });
    expect(speech(first)).toBe(
      'Are you still there? Could you tell me what you want to do? Would you say buy, sell, rent or invest?',
    );
    expectsNext(first);
    const second = await call.turn({ type: 'silence', count: 2 });
    expect(speech(second)).toBe(
      "It seems I can't hear you, so I'll let you go. Thanks for your time, goodbye!",
    );
    expect(ending(second)).toEqual({ type: 'end_call', reason: 'silence' });
  });

  it('maximum duration: the closing line and the end', async () => {
    const call = new Call(context());
    await call.open();
    const turn = await call.turn({ type: 'max_duration' });
    expect(turn).toEqual([
      { type: 'say', text: 'Thanks for your time, goodbye!' },
      { type: 'end_call', reason: 'max_duration' },
    ]);
    const outcome = await call.session.outcome(call.lines, 'max_duration');
    expect(outcome.summary).toBe(
      'Riley (real estate lead qualifier) called the callee, who said nothing the agent could understand. The call reached its maximum duration.',
    );
    expect(outcome.sentiment).toBe('neutral');
  });

  it('unparseable answers: asks once more, then moves on; declines skip at once', async () => {
    const call = new Call(context());
    await call.open();
    await call.turn('yes');
    const again = await call.turn('purple');
    expect(speech(again)).toBe("Sorry, I didn't catch that. Would you say buy, sell, rent or invest?");
    expectsNext(again);
    const moved = await call.turn('banana');
    expect(records(moved)).toEqual({});
    expect(speech(moved)).toMatch(/^No problem, let's move on\. Could you give me the maximum budget/);
    const declined = await call.turn("i'd rather not say");
    expect(speech(declined)).toMatch(
      /^No problem, we'll skip that\. Could you tell me when you want to move\?/,
    );
    // An interrupted utterance is just an utterance.
    const interrupted = await call.turn({
      type: 'utterance',
      text: 'over six months',
      confidence: 0.5,
      interrupted: true,
    });
    expect(records(interrupted)).toEqual({ timeline: 'over_6_months' });
    // A goodbye before the required details are in ends the call as not interested.
    const bye = await call.turn('okay bye');
    expect(ending(bye)).toEqual({ type: 'end_call', reason: 'not_interested' });
  });

  it('a cough that stopped the agent gets the question again, not an apology or a lost attempt', async () => {
    const call = new Call(context());
    await call.open();
    await call.turn('yes');
    const cough = await call.turn({ type: 'utterance', text: '', confidence: 0, interrupted: true });
    expect(speech(cough)).toBe(
      'Could you tell me what you want to do? Would you say buy, sell, rent or invest?',
    );
    // Words the recogniser could not make out are a failed attempt.
    const unclear = await call.turn({ type: 'utterance', text: '', confidence: 0, interrupted: false });
    expect(speech(unclear)).toBe("Sorry, I didn't catch that. Would you say buy, sell, rent or invest?");
    const answer = await call.turn('rent');
    expect(records(answer)).toEqual({ intent: 'rent' });
  });

  it('asks for the rest of a date-time heard in part', async () => {
    const call = new Call(
      context({
        metadata: null,
        collects: [
          {
            name: 'showing_datetime',
            type: 'datetime',
            description: 'Date and time of the booked viewing.',
            required: true,
          },
        ],
      }),
    );
    const open = await call.open();
    expect(speech(open)).toMatch(
      /About the date and time of the booked viewing: what day and time would suit you\?$/,
    );
    expect(expectsNext(open).slots).toEqual(['date', 'time']);
    const part = await call.turn('next monday');
    expect(speech(part)).toBe('And what time on Monday, June 9?');
    expect(expectsNext(part).slots).toEqual(['time']);
    const whole = await call.turn('ten thirty');
    expect(records(whole)).toEqual({ showing_datetime: '2025-06-09T10:30' });
  });

  it('with nothing to collect, says why it calls and asks whether that interests the callee', async () => {
    const call = new Call(context({ collects: [], metadata: null }));
    const open = await call.open();
    expect(speech(open)).toBe(
      "Hi, this is Riley from Acme Realty. I'm calling to find out what you want, your budget and timeline, and whether you are ready to talk to an agent. Would that be of interest to you?",
    );
    const yes = await call.turn('yes sure');
    expect(ending(yes)).toEqual({ type: 'end_call', reason: 'completed' });
  });

  it('leaves a voicemail with who, why, and the call-back number digit by digit', async () => {
    const session = new RulesBrain().start(context());
    expect(session.voicemailMessage()).toBe(
      "Hi Jordan, this is Riley. I'm calling to find out what you want, your budget and timeline, and whether you are ready to talk to an agent. Please call us back at one, five five five, zero one zero, zero one nine nine. Again, that's one, five five five, zero one zero, zero one nine nine. Thank you, goodbye.",
    );
  });

  it('fills a start_flow placeholder from the metadata', async () => {
    const call = new Call(
      context(
        { metadata: { first_name: 'Ana', city: 'Austin' } },
        { start_flow: 'Hello {first_name}! Riley here about homes in {city}.' },
      ),
    );
    expect(speech(await call.open())).toBe(
      'Hello Ana! Riley here about homes in Austin. Am I speaking with Ana?',
    );
  });
});
