import type { BrainAction, BrainContext, BrainSession, ConversationOutcome } from './types';

/**
 * The conversation when nothing the callee says can be understood (no recogniser for the call's
 * language): the agent speaks its opening, lets the callee answer (or stay silent), closes with
 * its end flow and hangs up. Nothing is invented about what the callee said.
 */
export function flowsOnlyBrain(context: BrainContext): BrainSession {
  return {
    async *open(): AsyncIterable<BrainAction> {
      if (context.start_flow.trim()) yield { type: 'say', text: context.start_flow };
      yield { type: 'expect', expect: { slots: [], phrases: [] } };
    },
    async *respond(): AsyncIterable<BrainAction> {
      if (context.end_flow.trim()) yield { type: 'say', text: context.end_flow };
      yield { type: 'end_call', reason: 'completed' };
    },
    voicemailMessage: () => context.start_flow || `Hello, this is ${context.conversation.agent_name}.`,
    async outcome(): Promise<ConversationOutcome> {
      return {
        collected: {},
        opted_out: false,
        sentiment: 'neutral',
        summary:
          `${context.conversation.agent_name} spoke its opening and closing lines; the callee's answers ` +
          `could not be understood (no speech recogniser for ${context.language}).`,
      };
    },
  };
}
