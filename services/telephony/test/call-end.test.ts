import { describe, expect, it } from 'vitest';
import { decideEnd, type EndFacts } from '../src/domain/call-end';

const leg = (
  cause: NonNullable<EndFacts['leg']>['cause'],
  sipCode: number | null,
  by: 'remote' | 'local' | 'timeout' = 'remote',
) => ({
  cause,
  sipCode,
  by,
});

describe('how a SIP call ends on the record', () => {
  it.each<[string, EndFacts, ReturnType<typeof decideEnd>]>([
    [
      '486',
      { answered: false, leg: leg('response', 486), local: null },
      { status: 'busy', call_end_reason: 'busy', ended_by: 'carrier' },
    ],
    [
      '404',
      { answered: false, leg: leg('response', 404), local: null },
      { status: 'failed', call_end_reason: 'invalid_number', ended_by: 'carrier' },
    ],
    [
      '603',
      { answered: false, leg: leg('response', 603), local: null },
      { status: 'failed', call_end_reason: 'declined', ended_by: 'carrier' },
    ],
    [
      'ring timeout',
      { answered: false, leg: leg('ring_timeout', 487, 'timeout'), local: null },
      { status: 'no_answer', call_end_reason: 'no_answer', ended_by: 'carrier' },
    ],
    [
      'hang-up while ringing',
      { answered: false, leg: leg('cancelled', 487, 'local'), local: 'hangup' },
      { status: 'no_answer', call_end_reason: 'cancelled', ended_by: 'system' },
    ],
    [
      'their BYE',
      { answered: true, leg: leg('response', 200), local: null },
      { status: 'completed', call_end_reason: 'customer_hung_up', ended_by: 'user' },
    ],
    [
      'our BYE after the flows',
      { answered: true, leg: leg('response', 200, 'local'), local: 'finished' },
      { status: 'completed', call_end_reason: 'agent_hung_up', ended_by: 'agent' },
    ],
    [
      'no media',
      { answered: true, leg: leg('response', 200, 'local'), local: 'no_media' },
      { status: 'failed', call_end_reason: 'carrier_error', ended_by: 'carrier' },
    ],
    [
      '200 without SDP',
      { answered: false, leg: leg('response', 200, 'local'), local: 'bad_sdp' },
      { status: 'failed', call_end_reason: 'carrier_error', ended_by: 'carrier' },
    ],
    [
      'trunk at capacity',
      { answered: false, leg: null, local: 'at_capacity' },
      { status: 'failed', call_end_reason: 'carrier_error', ended_by: 'system' },
    ],
    [
      'lost while ringing',
      { answered: false, leg: null, local: 'instance_lost' },
      { status: 'failed', call_end_reason: 'carrier_error', ended_by: 'system' },
    ],
    [
      'lost after the answer',
      { answered: true, leg: null, local: 'instance_lost' },
      { status: 'completed', call_end_reason: 'carrier_error', ended_by: 'system' },
    ],
  ])('%s', (_name, facts, expected) => {
    expect(decideEnd(facts)).toEqual(expected);
  });
});
