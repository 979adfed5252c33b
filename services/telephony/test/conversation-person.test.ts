import path from 'node:path';
import { infraModes } from '@voice/shared/testing';
import { firstSoundMs, readMono, readPcmWav, recognise, speechSpans } from '@voice/shared/testing/sip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerAfterAgent, dialCallee, lineWith, SPEECH, TEST_SILENCE_MS } from './support/conversation';
import { DialHarness } from './support/dial-harness';

// A person on the line: baresip plays a callee's words (flite speech) when the test tells it to,
// after hearing the agent finish; the agent's local engines hold the conversation. What the agent
// collected comes from pocketsphinx's recognition of those words through G.711 and RTP.

describe.each(infraModes())('a conversation with a person (%s)', (mode) => {
  const h = new DialHarness(mode);

  beforeAll(async () => {
    await h.setUp();
    await h.start({ conversation: { settings: { silenceMs: TEST_SILENCE_MS } } });
  }, 60_000);
  afterAll(() => h.tearDown(), 30_000);

  it('greets, asks, understands the answers, collects the details and ends the call', async () => {
    const call = await dialCallee(h, { greeting: 'Hello?' });
    const { callee } = call;
    try {
      await callee.answered();
      await answerAfterAgent(callee, 'My name is Jordan.');
      await answerAfterAgent(callee, 'I want to sell my house.');
      await answerAfterAgent(callee, 'Yes, I am interested. Goodbye.');
      const end = await call.ended();

      expect(end).toMatchObject({
        status: 'completed',
        call_end_reason: 'conversation_completed',
        ended_by: 'agent',
      });
      expect(end.conversation).toMatchObject({
        amd: 'human',
        // The key word of every answer must have been recognised (3 of 3): each is in the turn's
        // grammar, and the dialogue only moves on when it is understood. The other words of an
        // answer may be lost or misheard: pocketsphinx on synthetic telephone speech is approximate.
        collected: { name: 'Jordan', intent: 'sell', interested: true },
        opted_out: false,
        sentiment: 'positive',
        recognition_unavailable: null,
      });
      expect(end.conversation!.summary).toMatch(/Jordan/);

      // The callee's words in the right turns: each answer after the question it answers.
      const asked = end.spoken.map((line) => Date.parse(line.at));
      expect(asked.length).toBeGreaterThanOrEqual(4);
      const heardAt = (word: string) => {
        const line = lineWith(end.heard, word);
        expect(line, `the callee's "${word}" was heard: ${JSON.stringify(end.heard)}`).toBeDefined();
        expect(line!.confidence).toBeGreaterThan(0);
        expect(line!.confidence).toBeLessThanOrEqual(1);
        return Date.parse(line!.at);
      };
      expect(heardAt('hello')).toBeLessThan(asked[0]!);
      const name = heardAt('jordan');
      expect(name).toBeGreaterThan(asked[0]!);
      expect(name).toBeLessThan(asked[1]!);
      const intent = heardAt('sell');
      expect(intent).toBeGreaterThan(asked[1]!);
      expect(intent).toBeLessThan(asked[2]!);
      expect(heardAt('yes')).toBeGreaterThan(asked[2]!);
      expect(end.spoken[0]!.text).toContain(SPEECH.start_flow);
      expect(end.spoken.every((line) => !line.interrupted)).toBe(true);

      // What baresip heard holds the agent's opening, as pocketsphinx hears it in its recording.
      const { heard } = await callee.recording();
      const agent = speechSpans((await readMono(heard)).samples).filter(
        (span) => span.endMs - span.startMs >= 500,
      );
      expect(agent.length).toBeGreaterThanOrEqual(4);
      const openingEnd = Math.max(
        ...agent.filter((s) => s.startMs < agent[0]!.startMs + 4000).map((s) => s.endMs),
      );
      const opening = await recognise(
        heard,
        [SPEECH.start_flow, 'may i have your name please', 'your order has shipped'],
        // The opening and its question, however pauses split them into spans.
        { fromMs: Math.max(0, agent[0]!.startMs - 200), toMs: openingEnd + 200 },
      );
      expect(opening, `the opening ${JSON.stringify(agent[0])} of ${heard}`).toContain(
        'hello my name is riley calling from acme realty',
      );
    } finally {
      await callee.stop();
    }
  }, 180_000);

  it('stops speaking when the callee talks over it, and answers what they said', async () => {
    const long = {
      ...SPEECH,
      start_flow:
        'Hello, my name is Riley, calling from Acme Realty about the house you asked us about on our website last week. ' +
        'I have a few quick questions for you.',
    };
    const call = await dialCallee(h, { greeting: 'Hello?' }, undefined, long);
    const { callee } = call;
    try {
      await callee.answered();
      // The agent's first words (a pause between words is enough): then the callee talks over it.
      await callee.heardSpeech({ timeoutMs: 60_000, quietMs: 100 });
      // The interruption the recogniser hears most reliably; the agent must stop, then answer it.
      await callee.say('Please stop calling me.');
      const end = await call.ended();
      const told = JSON.stringify({ heard: end.heard, spoken: end.spoken });

      expect(end, told).toMatchObject({ status: 'completed', call_end_reason: 'conversation_completed' });
      const cut = end.spoken[0]!;
      expect(cut.interrupted, told).toBe(true);
      expect(cut.text.length).toBeLessThan(long.start_flow.length);
      const request = lineWith(end.heard, 'stop calling');
      expect(request, told).toBeDefined();
      // It answered what it heard: a line after the request, and the opt-out recorded.
      expect(end.spoken.some((line) => Date.parse(line.at) > Date.parse(request!.at))).toBe(true);
      expect(end.conversation!.opted_out).toBe(true);

      // From our own recording, both directions on one clock (left sent, right heard, slot by
      // slot; baresip's two dumps each start at their own first frame and drift apart on a loaded
      // machine): the callee began talking at `spoke`, its first sound after the agent began; the
      // agent's speech going on then ended soon after, while its line had seconds left. The 200 ms
      // target is measured by `pnpm bench conversation`.
      const ours = await readPcmWav(path.join(h.recordings, 'recordings', `${call.callId}.wav`));
      const [sentByUs, heardByUs] = ours.channels as [Int16Array, Int16Array];
      const agent = speechSpans(sentByUs, { hangoverMs: 120 });
      expect(agent.length, 'the agent spoke').toBeGreaterThan(0);
      const from = Math.floor((agent[0]!.startMs * 8000) / 1000);
      const spoke = agent[0]!.startMs + (firstSoundMs(heardByUs.subarray(from), 8000, 500) ?? Number.NaN);
      expect(spoke, 'the callee was heard talking over the agent').not.toBeNaN();
      // Its answer cannot begin before the request has been said and its end heard (over 1.5 s).
      const before = agent.filter((span) => span.startMs < spoke + 500);
      const stopped = Math.max(...before.map((span) => span.endMs));
      expect(
        stopped,
        `the agent was still talking when the callee began: ${JSON.stringify(agent)}`,
      ).toBeGreaterThan(spoke);
      expect(stopped - spoke, `the agent stopped ${stopped - spoke} ms after the callee began`).toBeLessThan(
        600,
      );
      expect(agent.filter((span) => span.startMs >= spoke + 500 && span.startMs < spoke + 1500)).toEqual([]);
    } finally {
      await callee.stop();
    }
  }, 180_000);
});
