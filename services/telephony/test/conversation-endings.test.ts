import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { infraModes } from '@voice/shared/testing';
import {
  readMono,
  readPcmWav,
  speechSpans,
  startScriptedCallee,
  voicemailGreeting,
} from '@voice/shared/testing/sip';
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

      // Our own recording holds both directions on one clock (left sent, right heard, one slot
      // at a time): the beep is the last sound the machine made, and the message begins after it.
      // baresip's two dumps are not used for this: each starts at its own first frame and they
      // drift apart on a loaded machine.
      const ours = await readPcmWav(path.join(h.recordings, 'recordings', `${call.callId}.wav`));
      const [sentByUs, heardByUs] = ours.channels as [Int16Array, Int16Array];
      const beepEnd = speechSpans(heardByUs).at(-1)!.endMs;
      const message = speechSpans(sentByUs);
      expect(message.length).toBeGreaterThan(0);
      expect(
        message[0]!.startMs,
        `message ${JSON.stringify(message[0])} after the beep at ${beepEnd}`,
      ).toBeGreaterThanOrEqual(beepEnd);
      // And the machine heard it.
      const { heard } = await call.callee.recording();
      expect(speechSpans((await readMono(heard)).samples).length).toBeGreaterThan(0);
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
