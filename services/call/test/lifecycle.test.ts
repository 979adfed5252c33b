import { CALL_OUTCOMES, type CallOutcome, type CallStatus } from '@voice/shared/contracts';
import { describe, expect, it } from 'vitest';
import type { CallResult, CarrierEvent } from '../src/domain/call-events';
import { isFinal, nextTransition } from '../src/domain/lifecycle';

const at = new Date('2026-11-26T10:00:00.000Z');
const LIVE: CallStatus[] = ['initializing', 'ringing', 'in_progress'];

function ended(status: CallOutcome): CarrierEvent {
  const result: CallResult = {
    status,
    answered_at: status === 'completed' ? at : null,
    ended_at: at,
    duration_seconds: status === 'completed' ? 42 : 0,
    transcript: [],
    sentiment: 'neutral',
    call_summary: '',
    call_end_reason: status === 'completed' ? 'conversation_completed' : 'no_answer',
    ended_by: status === 'completed' ? 'agent' : 'system',
    details_collection: { status: 'none', score: 0, collected_details: [], collected_values: {} },
    opted_out: false,
    ai_cost: 0,
    telephony_cost: 0,
    total_cost: 0,
    sip: null,
  };
  return { type: 'ended', at, result };
}

const ringing: CarrierEvent = { type: 'ringing', at };
const answered: CarrierEvent = { type: 'answered', at, sip: { code: 200, reason: 'OK' } };

describe('the call state machine', () => {
  it('knows the outcomes as final and the rest as live', () => {
    for (const status of CALL_OUTCOMES) expect(isFinal(status), status).toBe(true);
    for (const status of LIVE) expect(isFinal(status), status).toBe(false);
  });

  it('moves forward: initializing -> ringing -> in_progress -> outcome', () => {
    expect(nextTransition('initializing', ringing)).toEqual({ status: 'ringing' });
    expect(nextTransition('ringing', answered)).toEqual({
      status: 'in_progress',
      answeredAt: at,
      sip: { code: 200, reason: 'OK' },
    });
    expect(nextTransition('in_progress', ended('completed'))).toMatchObject({ status: 'completed' });
  });

  it('reaches an outcome from any live state, and an answer may come without a ring', () => {
    for (const status of LIVE) {
      for (const outcome of CALL_OUTCOMES) {
        expect(nextTransition(status, ended(outcome)), `${status} -> ${outcome}`).toMatchObject({
          status: outcome,
          result: { status: outcome },
        });
      }
    }
    expect(nextTransition('initializing', answered)).toMatchObject({ status: 'in_progress' });
  });

  it('ignores repeats and stale events', () => {
    expect(nextTransition('ringing', ringing)).toBeNull();
    expect(nextTransition('in_progress', ringing)).toBeNull();
    expect(nextTransition('in_progress', answered)).toBeNull();
  });

  it('changes nothing once the call has its outcome', () => {
    for (const outcome of CALL_OUTCOMES) {
      for (const event of [ringing, answered, ended('completed'), ended('failed')]) {
        expect(nextTransition(outcome, event), `${outcome} + ${event.type}`).toBeNull();
      }
    }
  });
});
