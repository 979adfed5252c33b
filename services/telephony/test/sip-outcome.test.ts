import { describe, expect, it } from 'vitest';
import { inviteOutcome } from '../src/domain/sip-outcome';

// The SIP-to-outcome table: what each way an INVITE can end means for the call record.

describe('inviteOutcome', () => {
  it.each([
    [486, 'busy', 'busy'],
    [600, 'busy', 'busy'],
    [408, 'no_answer', 'no_answer'],
    [480, 'no_answer', 'no_answer'],
    [404, 'failed', 'invalid_number'],
    [484, 'failed', 'invalid_number'],
    [604, 'failed', 'invalid_number'],
    [603, 'failed', 'declined'],
    [403, 'failed', 'carrier_error'],
    [500, 'failed', 'carrier_error'],
    [503, 'failed', 'carrier_error'],
    [407, 'failed', 'carrier_error'],
    [302, 'failed', 'carrier_error'],
  ])('a final %i from the far end: %s (%s)', (sipCode, status, reason) => {
    expect(inviteOutcome({ cause: 'response', sipCode })).toEqual({ status, reason });
  });

  it('a 2xx is answered', () => {
    expect(inviteOutcome({ cause: 'response', sipCode: 200 })).toEqual({ status: 'answered' });
  });

  it('our CANCEL at the ring timeout is no_answer, whatever the far end said after it', () => {
    for (const sipCode of [487, 200, null]) {
      expect(inviteOutcome({ cause: 'ring_timeout', sipCode })).toEqual({
        status: 'no_answer',
        reason: 'no_answer',
      });
    }
  });

  it('no response at all, or no way to reach the trunk, is a carrier error', () => {
    expect(inviteOutcome({ cause: 'no_response', sipCode: null })).toEqual({
      status: 'failed',
      reason: 'carrier_error',
    });
    expect(inviteOutcome({ cause: 'transport_error', sipCode: null })).toEqual({
      status: 'failed',
      reason: 'carrier_error',
    });
  });

  it('our own hang-up before the answer is a cancellation', () => {
    expect(inviteOutcome({ cause: 'cancelled', sipCode: 487 })).toEqual({
      status: 'cancelled',
      reason: 'cancelled',
    });
  });
});
