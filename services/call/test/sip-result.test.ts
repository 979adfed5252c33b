import type { CollectedDetail, SipCallEnd, SipConversationResult } from '@voice/shared';
import { SipDialRequest, TranscriptEntry } from '@voice/shared';
import { describe, expect, it } from 'vitest';
import { transitionFor } from '../src/app/transitions';
import { type DialRequest, sipCallResult } from '../src/carrier/index';
import { conversationSeconds, SIP_BEFORE_ANSWER_SECONDS, sipDialBody } from '../src/carrier/sip-dial';
import type { CallRow } from '../src/db/call-rows';

/*
 * How the call service reads what the telephony service reports of a conversation, and what it
 * asks it to hold: pure functions, no bus or database (sip-calls.test.ts runs them over both).
 */

const COLLECTS: CollectedDetail[] = [
  { name: 'budget', type: 'number', description: 'Budget for the purchase.', required: true },
  { name: 'preferred_area', type: 'string', description: 'Where they want to live.', required: true },
  { name: 'move_in_date', type: 'date', description: 'When they want to move.', required: false },
];

const ANSWERED = Date.parse('2026-11-26T10:00:00.000Z');
const at = (ms: number) => new Date(ANSWERED + ms).toISOString();
const clock = (ms: number) => at(ms).slice(11, 19);

const conversation = (over: Partial<SipConversationResult> = {}): SipConversationResult => ({
  amd: 'human',
  collected: { budget: 650_000, preferred_area: 'downtown' },
  opted_out: false,
  sentiment: 'positive',
  summary: 'Jordan wants a house downtown for about 650,000.',
  recognition_unavailable: null,
  ...over,
});

function end(over: Partial<SipCallEnd> = {}): SipCallEnd {
  return {
    status: 'completed',
    call_end_reason: 'conversation_completed',
    ended_by: 'agent',
    answered_at: at(0),
    ended_at: at(30_000),
    duration_seconds: 30,
    spoken: [
      { text: 'Hi, this is Riley.', at: at(0), interrupted: false },
      // Cut where the callee talked over it: the text is what was said, as the telephony service gives it.
      { text: 'What budget do you have in', at: at(4_000), interrupted: true },
      { text: 'Goodbye!', at: at(20_000), interrupted: false },
    ],
    heard: [
      { text: 'hello yes', at: at(2_000), confidence: 0.91 },
      { text: 'about six hundred fifty thousand', at: at(5_000), confidence: 0.62 },
      { text: '  ', at: at(6_000), confidence: 0.1 },
      { text: 'downtown', at: at(20_000), confidence: 0.8 },
    ],
    dtmf: [{ digit: '5', at: at(10_000) }],
    recorded: true,
    detail: null,
    conversation: conversation(),
    ...over,
  };
}

/** The changes applying `sipEnd` makes to a live call of an agent collecting COLLECTS. */
function applied(sipEnd: SipCallEnd, collects = COLLECTS) {
  const row = { status: 'in_progress', agent_snapshot: { collects } } as Pick<
    CallRow,
    'status' | 'agent_snapshot'
  >;
  const event = {
    type: 'ended' as const,
    at: new Date(sipEnd.ended_at),
    result: sipCallResult(sipEnd, null),
  };
  const changes = transitionFor(row, event);
  if (!changes) throw new Error('no transition');
  return changes;
}

describe('a SIP call’s record from its conversation', () => {
  it('interleaves the agent’s lines, the callee’s (with confidence) and keys by time', () => {
    const { transcript } = applied(end());
    expect(transcript).toEqual([
      { role: 'agent', content: 'Hi, this is Riley.', timestamp: clock(0) },
      { role: 'user', content: 'hello yes', confidence: 0.91, timestamp: clock(2_000) },
      { role: 'agent', content: 'What budget do you have in', timestamp: clock(4_000) },
      {
        role: 'user',
        content: 'about six hundred fifty thousand',
        confidence: 0.62,
        timestamp: clock(5_000),
      },
      { role: 'user', content: '[DTMF] 5', timestamp: clock(10_000) },
      // The same moment: the agent's line first.
      { role: 'agent', content: 'Goodbye!', timestamp: clock(20_000) },
      { role: 'user', content: 'downtown', confidence: 0.8, timestamp: clock(20_000) },
    ]);
    for (const line of transcript ?? []) expect(TranscriptEntry.safeParse(line).success).toBe(true);
  });

  it('takes sentiment, summary and opt-out from the conversation', () => {
    const changes = applied(end({ conversation: conversation({ opted_out: true, sentiment: 'negative' }) }));
    expect(changes).toMatchObject({
      sentiment: 'negative',
      call_summary: 'Jordan wants a house downtown for about 650,000.',
      opted_out: true,
    });
  });

  it('counts collected values against the agent’s details: complete, partial, none; unknown names ignored', () => {
    expect(applied(end()).details_collection).toEqual({
      status: 'complete',
      score: 0.67,
      collected_details: ['budget', 'preferred_area'],
      collected_values: { budget: 650_000, preferred_area: 'downtown' },
    });
    const partial = conversation({ collected: { move_in_date: '2027-02-01', invented: 'x', budget: '' } });
    expect(applied(end({ conversation: partial })).details_collection).toEqual({
      status: 'partial',
      score: 0.33,
      collected_details: ['move_in_date'],
      collected_values: { move_in_date: '2027-02-01' },
    });
    expect(applied(end({ conversation: conversation({ collected: {} }) })).details_collection).toMatchObject({
      status: 'none',
      score: 0,
    });
    // An agent with nothing to collect completed its conversation (as simulated calls count it).
    expect(applied(end(), []).details_collection).toMatchObject({ status: 'complete', score: 1 });
  });

  it('says in the summary when the callee’s speech could not be recognised', () => {
    const unheard = conversation({ recognition_unavailable: 'no speech recogniser for fr-FR here' });
    const { call_summary } = applied(end({ heard: [], conversation: unheard }));
    expect(call_summary).toBe(
      'Jordan wants a house downtown for about 650,000. What the callee said could not be transcribed: ' +
        'no speech recogniser for fr-FR here',
    );
  });

  it('reads an end without a conversation (an older telephony instance) as before', () => {
    const changes = applied(end({ heard: [], conversation: null }));
    expect(changes).toMatchObject({
      sentiment: 'neutral',
      opted_out: false,
      details_collection: { status: 'none', score: 0, collected_details: [], collected_values: {} },
    });
    expect(changes.call_summary).toBe(
      'Call over a SIP trunk was answered and the agent spoke its flows; no details were collected.',
    );
  });

  it('collects nothing and stays neutral for a call that did not complete', () => {
    const changes = applied(
      end({ status: 'voicemail', call_end_reason: 'voicemail_detected', conversation: conversation() }),
    );
    expect(changes).toMatchObject({
      sentiment: 'neutral',
      details_collection: { status: 'none', score: 0, collected_details: [], collected_values: {} },
    });
  });
});

describe('what a SIP dial asks the conversation engine to hold', () => {
  const request: DialRequest = {
    callId: '5b0f8f7e-3c55-4c1b-9d8f-0b1d6a4f9e21',
    trunkId: '6c1f8f7e-3c55-4c1b-9d8f-0b1d6a4f9e22',
    from: '+14155550100',
    to: '+14155551234',
    agent: {
      id: '7d2f8f7e-3c55-4c1b-9d8f-0b1d6a4f9e23',
      name: 'Riley',
      agent_type: 'real_estate_lead_qualifier',
      goal: 'Qualify the lead',
      language: 'en',
      start_flow: 'Hi, this is Riley.',
      end_flow: 'Goodbye!',
      collects: COLLECTS,
      voice: 'alloy',
      ai_model: 'gpt-4o',
    },
    metadata: { name: 'Jordan' },
    promptHash: 'sha256:abc',
    startedAt: new Date(ANSWERED),
  };

  it('sends the agent, its prompt and model, what it collects and the call’s metadata', () => {
    const body = sipDialBody(request, 'You are Riley.', 7200);
    expect(SipDialRequest.parse(body)).toEqual(body);
    expect(body.conversation).toEqual({
      agent_name: 'Riley',
      agent_type: 'real_estate_lead_qualifier',
      goal: 'Qualify the lead',
      prompt: 'You are Riley.',
      ai_model: 'gpt-4o',
      collects: COLLECTS,
      metadata: { name: 'Jordan' },
      max_duration_seconds: 7200 - SIP_BEFORE_ANSWER_SECONDS - 60,
    });
  });

  it('ends a conversation before the reaper’s bound, within the contract’s range', () => {
    for (const max of [10, 600, 1000, 3600, 7200, 86_400]) {
      const seconds = conversationSeconds(max);
      expect(seconds).toBeGreaterThanOrEqual(10);
      expect(seconds).toBeLessThanOrEqual(14_400);
      // The longest wait for an answer plus the conversation fits the bound wherever it can.
      if (max >= SIP_BEFORE_ANSWER_SECONDS + 70) {
        expect(SIP_BEFORE_ANSWER_SECONDS + seconds).toBeLessThan(max);
      }
    }
    expect(conversationSeconds(86_400)).toBe(14_400);
  });
});
