import { randomUUID } from 'node:crypto';
import type { SipCallEnd, SipConversation } from '@voice/shared';
import {
  type ScriptedCallee,
  type ScriptedCalleeOptions,
  startScriptedCallee,
} from '@voice/shared/testing/sip';
import type { DialHarness } from './dial-harness';

// A real conversation for telephony tests: the service dials a scripted baresip callee over
// loopback, and the agent's local engines (speech synthesis, pocketsphinx, the rule brain) talk
// with it while the test steers what the callee says.

/** Words pocketsphinx hears well in flite's voice ("Hi, this is ..." it mishears), to check recordings. */
export const SPEECH = {
  start_flow: 'Hello, my name is Riley, calling from Acme Realty.',
  end_flow: 'Thanks for your time, goodbye!',
};

/** A lead qualifier asking three things: the callee's name, what they want to do, and yes or no. */
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
  ],
  metadata: null,
  max_duration_seconds: 180,
};

/** Short silences, so the silence scenario takes seconds. */
export const TEST_SILENCE_MS = 2500;

export interface CallUnderTest {
  callId: string;
  callee: ScriptedCallee;
  /** The call's end, as the ended event states it. */
  ended(): Promise<SipCallEnd>;
}

/** Starts a scripted callee and dials it with the conversation. */
export async function dialCallee(
  h: DialHarness,
  callee: ScriptedCalleeOptions,
  conversation: SipConversation = CONVERSATION,
  speech = SPEECH,
): Promise<CallUnderTest> {
  const person = await startScriptedCallee(callee);
  const trunk = await h.trunk(person.uri);
  const callId = randomUUID();
  await h.dial(trunk, callId, speech, conversation);
  return {
    callId,
    callee: person,
    ended: async () => (await h.ended(callId, 120_000)).at(-1)!.end!,
  };
}

/** The callee waits for the agent to finish speaking (its speech, then quiet), then says `what`. */
export async function answerAfterAgent(callee: ScriptedCallee, what: string): Promise<void> {
  await callee.heardSpeech({ timeoutMs: 60_000 });
  await callee.say(what);
}

/** The spoken or heard line whose text holds `word`, with its index. */
export function lineWith<T extends { text: string }>(lines: readonly T[], word: string): T | undefined {
  return lines.find((line) => line.text.toLowerCase().includes(word));
}
