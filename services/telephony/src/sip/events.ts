import type { InviteEndCause } from '../domain/sip-outcome';

// What a call leg reports, in order: trying, ringing, answered, then ended (exactly once, last).

export interface CallEnded {
  type: 'ended';
  /** The final response to the INVITE (200 for an answered call); null when none arrived. */
  sipCode: number | null;
  sipReason: string | null;
  /** Who ended it: the far end (a rejection, a BYE, a broken connection), our hang-up, or a timer. */
  by: 'remote' | 'local' | 'timeout';
  cause: InviteEndCause;
  answered: boolean;
}

export type CallProgress =
  | { type: 'trying' }
  | { type: 'ringing'; sipCode: number; sipReason: string; earlySdp: string | null }
  | { type: 'answered'; sipCode: number; sipReason: string; remoteSdp: string | null }
  /** The far end changed the session (a re-INVITE with SDP); media should follow it. */
  | { type: 'media_updated'; remoteSdp: string }
  | CallEnded;

export type CallProgressType = CallProgress['type'];
