import { randomUUID } from 'node:crypto';
import { infraModes } from '@voice/shared/testing';
import { readMono, speechSpans, startScriptedCallee, voicemailGreeting } from '@voice/shared/testing/sip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerAfterAgent, CONVERSATION, dialCallee, TEST_SILENCE_MS } from './support/conversation';
import { DialHarness } from './support/dial-harness';

// How a conversation ends besides completing: the callee opts out, an answering machine picks up,
// or nobody says anything. Real calls to a scripted baresip callee, local engines throughout.

describe.each(infraModes())('conversations that end early (%s)', (mode) => {
  const h = new DialHarness(mode);

  beforeAll(async () => {
    await h.setUp();
    await h.start({ conversation: { settings: { silenceMs: TEST_SILENCE_MS } } });
  }, 60_000);
  afterAll(() => h.tearDown(), 30_000);

  it('ends politely when the callee asks not to be called again, and records the opt-out', async () => {
    const call = await dialCallee(h, { greeting: 'Hello?' });
    try {
      await call.callee.answered();
      await answerAfterAgent(call.callee, 'Please stop calling me.');
      const end = await call.ended();
      expect(end).toMatchObject({
        status: 'completed',
        call_end_reason: 'conversation_completed',
        ended_by: 'agent',
      });
      expect(end.conversation).toMatchObject({ amd: 'human', opted_out: true, sentiment: 'negative' });
      expect(end.heard.some((line) => line.text.includes('stop calling'))).toBe(true);
      // It said something after the request (the confirmation) before hanging up.
      const asked = Date.parse(end.heard.find((line) => line.text.includes('stop'))!.at);
      expect(end.spoken.some((line) => Date.parse(line.at) > asked)).toBe(true);
    } finally {
      await call.callee.stop();
    }
  }, 120_000);

  it('waits for an answering machine’s beep, leaves its message and ends as voicemail', async () => {
    const greeting = await voicemailGreeting(
      'Hi, you have reached Jordan. I cannot take your call right now. Please leave a message after the tone.',
    );
    const call = await dialCallee(h, { greeting });
    try {
      const end = await call.ended();
      expect(end).toMatchObject({
        status: 'voicemail',
        call_end_reason: 'voicemail_detected',
        ended_by: 'agent',
      });
      expect(end.conversation).toMatchObject({ amd: 'machine', opted_out: false, sentiment: 'neutral' });
      expect(end.spoken).toHaveLength(1);
      expect(end.spoken[0]!.text).toMatch(/call us back/i);

      // The beep is the last sound the machine made (its recording); the agent's message, in what
      // the machine heard, begins after it (both recordings share a time base within 40 ms).
      const { heard, sent } = await call.callee.recording();
      const machine = speechSpans((await readMono(sent)).samples);
      const beepEnd = machine.at(-1)!.endMs;
      const agent = speechSpans((await readMono(heard)).samples);
      expect(agent.length).toBeGreaterThan(0);
      expect(
        agent[0]!.startMs,
        `message ${JSON.stringify(agent[0])} after the beep at ${beepEnd}`,
      ).toBeGreaterThanOrEqual(beepEnd - 40);
    } finally {
      await call.callee.stop();
    }
  }, 120_000);

  it('says so in the record, instead of inventing text, when the language has no recogniser here', async () => {
    const spanish = {
      start_flow: 'Hola, soy Riley de Acme Realty.',
      end_flow: 'Gracias por su tiempo, adiós.',
    };
    const callee = await startScriptedCallee({ greeting: 'Hello?' });
    const trunk = await h.trunk(callee.uri);
    const callId = randomUUID();
    try {
      await h.dial(trunk, callId, spanish, CONVERSATION, 'es');
      await answerAfterAgent(callee, 'Yes, I am interested.');
      const end = (await h.ended(callId, 120_000)).at(-1)!.end!;
      expect(end).toMatchObject({
        status: 'completed',
        call_end_reason: 'conversation_completed',
        heard: [],
      });
      expect(end.spoken.map((line) => line.text)).toEqual([spanish.start_flow, spanish.end_flow]);
      expect(end.conversation!.recognition_unavailable).toMatch(/language es\b/);
      expect(end.conversation!.collected).toEqual({});
    } finally {
      await callee.stop();
    }
  }, 120_000);

  it('reprompts a silent callee once, then says goodbye and ends with a reason', async () => {
    const call = await dialCallee(h, { greeting: 'Hello?' });
    try {
      const end = await call.ended();
      expect(end).toMatchObject({ status: 'completed', call_end_reason: 'agent_hung_up', ended_by: 'agent' });
      expect(end.conversation).toMatchObject({ amd: 'human', collected: {} });
      // The opening with its question, the reprompt, the goodbye.
      expect(end.spoken).toHaveLength(3);
      const [asked, reprompt, goodbye] = end.spoken.map((line) => Date.parse(line.at));
      expect(reprompt! - asked!).toBeGreaterThanOrEqual(TEST_SILENCE_MS);
      expect(goodbye! - reprompt!).toBeGreaterThanOrEqual(TEST_SILENCE_MS);
      expect(end.conversation!.summary).toMatch(/silen|no answer|did not answer|didn't answer/i);
    } finally {
      await call.callee.stop();
    }
  }, 120_000);
});
