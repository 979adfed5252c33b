import type { SipConversation } from '@voice/shared';

// What the bench's agent and callees say. The lead qualifier of the telephony conversation tests
// (services/telephony/test/support/conversation.ts), with two optional details more, so that one
// call holds five measured turns: the rule brain asks the name, buy/sell/rent, whether an agent
// may call, the bedrooms and when, then says goodbye and ends the call.

export const SPEECH = {
  start_flow: 'Hello, my name is Riley, calling from Acme Realty.',
  end_flow: 'Thanks for your time, goodbye!',
};

/** A long opening for barge-in: seconds of speech left when the callee talks over it. */
export const LONG_SPEECH = {
  ...SPEECH,
  start_flow:
    'Hello, my name is Riley, calling from Acme Realty about the house you asked us about on our website last week. ' +
    'I have a few quick questions for you.',
};

export const CONVERSATION: SipConversation = {
  agent_name: 'Riley',
  agent_type: 'real_estate_lead_qualifier',
  goal: 'Find out whether the lead wants to buy or sell a home.',
  prompt: 'You are Riley from Acme Realty.',
  ai_model: 'gpt-4o-mini',
  collects: [
    { name: 'name', type: 'string', description: "The lead's name.", required: true },
    {
      name: 'intent',
      type: 'enum',
      description: 'What the lead wants to do.',
      required: true,
      options: ['buy', 'sell', 'rent'],
    },
    {
      name: 'interested',
      type: 'boolean',
      description: 'Whether they want an agent to call.',
      required: true,
    },
    { name: 'bedrooms', type: 'number', description: 'How many bedrooms the home has.', required: false },
    {
      name: 'timeline',
      type: 'enum',
      description: 'When they want to move.',
      required: false,
      options: ['this month', 'this year', 'later'],
    },
  ],
  metadata: null,
  max_duration_seconds: 180,
};

/** The callee's answers, one per agent turn, in flite's `slt` voice (what pocketsphinx hears best). */
export const ANSWERS = [
  'My name is Jordan.',
  'I want to sell my house.',
  'Yes, I am interested.',
  'Three bedrooms.',
  'This year.',
] as const;

/** What the callee says over the agent's opening. */
export const INTERRUPTION = 'What is this about?';
