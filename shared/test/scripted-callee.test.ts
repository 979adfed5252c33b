import {
  callAndWaitForByeScenario,
  freeUdpAndTcpPort,
  readMono,
  recognise,
  type ScriptedCallee,
  type Sipp,
  speechClip,
  speechSpans,
  startScriptedCallee,
  startSipp,
  voicemailGreeting,
} from '@voice/shared/testing/sip';
import { afterEach, describe, expect, it } from 'vitest';

// The scripted callee on real processes: sipp calls baresip and echoes back every RTP packet, so
// what baresip hears is what it said: the echo stands in for an agent whose turns it waits for.

const HELLO = 'Hello?';
const NAME = 'Yes, this is Jordan speaking.';
const LONG = 'I would like to sell my house next year, if the price is right and the market is good.';
const BYE = 'Goodbye.';
/** Phrases that are not said: the grammar must not find them. */
const DISTRACTORS = ['no thank you', 'call me back tomorrow', 'wrong number'];

async function callIt(callee: ScriptedCallee): Promise<Sipp> {
  const media = await freeUdpAndTcpPort();
  const host = callee.uri.replace(/^sip:/, '');
  return startSipp({
    scenario: callAndWaitForByeScenario(),
    transport: 'udp',
    timeoutSeconds: 60,
    extraArgs: ['-s', '+15550002222', '-mp', String(media), '-rtp_echo', host],
  });
}

describe('a scripted callee (baresip steered through its menu)', () => {
  let callee: ScriptedCallee | undefined;
  let sipp: Sipp | undefined;
  afterEach(async () => {
    await callee?.stop();
    await sipp?.stop();
  });

  it('answers with its greeting, says each line when told, drops a line cut short, and hangs up', async () => {
    callee = await startScriptedCallee({ greeting: HELLO });
    sipp = await callIt(callee);
    await callee.answered();
    // Each turn waits for the echo of the last one to end, as a test waits for the agent's turn.
    await callee.heardSpeech({ after: 0, quietMs: 400 });
    const name = await callee.say(NAME);
    await callee.heardSpeech({ after: name.position!.heardMs, quietMs: 400 });
    const long = await callee.say(LONG);
    // Cut it at its first pause.
    await callee.heardSpeech({ after: long.position!.heardMs, quietMs: 100 });
    const cut = await callee.silence();
    await callee.heardSpeech({ after: long.position!.heardMs, quietMs: 600 });
    const bye = await callee.say(BYE);
    await callee.heardSpeech({ after: bye.position!.heardMs, quietMs: 400 });
    const hangUp = await callee.hangUp();
    await callee.ended();
    expect((await sipp.exited).code, 'sipp got the BYE').toBe(0);

    const { sent, heard } = await callee.recording();
    const ours = await readMono(sent);
    expect(ours.rate).toBe(8000);
    const spans = speechSpans(ours.samples);
    expect(spans).toHaveLength(4);
    // Each line starts after its command (at most a frame later) and before the next one.
    const commands = [0, ...[name, long, bye, hangUp].map((m) => m.position!.sentMs)];
    spans.forEach((span, i) => {
      expect(span.startMs).toBeGreaterThanOrEqual(commands[i]!);
      expect(span.endMs).toBeLessThanOrEqual(commands[i + 1]! + 20);
    });
    // The long line stopped where it was cut, well before its end.
    const longClip = await readMono(await speechClip(LONG));
    const unsaid = longClip.samples.length / 8 - (cut.position!.sentMs - long.position!.sentMs);
    expect(unsaid, 'the cut came a second or more before the end of the line').toBeGreaterThan(1000);
    expect(spans[2]!.endMs).toBeLessThanOrEqual(cut.position!.sentMs + 20);

    // The words are there, each in its place.
    const phrases = [HELLO, NAME, BYE, ...DISTRACTORS];
    const said = await Promise.all(
      [0, 1, 3].map((i) =>
        recognise(sent, phrases, { fromMs: spans[i]!.startMs - 200, toMs: spans[i]!.endMs + 200 }),
      ),
    );
    expect(said).toEqual(['hello', 'yes this is jordan speaking', 'goodbye']);

    // The echo came back: what it heard has the same lines at the same places (within a frame
    // or two: both dumps count from the first frame each side sent).
    const echo = speechSpans((await readMono(heard)).samples);
    expect(echo).toHaveLength(4);
    echo.forEach((span, i) => {
      expect(Math.abs(span.startMs - spans[i]!.startMs)).toBeLessThanOrEqual(40);
    });
  });

  it('is a voicemail box: a greeting and a beep as it answers, then a line after which it hangs up', async () => {
    const greeting = await voicemailGreeting('You have reached Jordan. Please leave a message.', 1000);
    callee = await startScriptedCallee({ greeting });
    sipp = await callIt(callee);
    await callee.answered();
    await callee.heardSpeech({ after: 0, quietMs: 1000 });
    const bye = await callee.say(BYE, { thenHangUp: true });
    const ended = await callee.ended();
    expect(ended.at).toBeGreaterThan(bye.at);
    expect((await sipp.exited).code, 'the callee hung up').toBe(0);

    const ours = await readMono((await callee.recording()).sent);
    const spans = speechSpans(ours.samples);
    // ... greeting words, the beep (500 ms of tone), "goodbye".
    const beep = spans.at(-2)!;
    expect(beep.endMs - beep.startMs).toBeGreaterThanOrEqual(480);
    expect(beep.endMs - beep.startMs).toBeLessThanOrEqual(540);
    expect(beep.endMs).toBeLessThanOrEqual(bye.position!.sentMs);
    const last = spans.at(-1)!;
    expect(
      await recognise((await callee.recording()).sent, [BYE, HELLO, ...DISTRACTORS], {
        fromMs: last.startMs - 200,
      }),
    ).toBe('goodbye');
  });

  it('speaks in each voice at 8 kHz, and says which words the recogniser cannot hear', async () => {
    for (const voice of ['slt', 'kal', 'espeak'] as const) {
      const clip = await readMono(await speechClip(NAME, voice));
      expect(clip.rate).toBe(8000);
      expect(speechSpans(clip.samples).length, voice).toBeGreaterThan(0);
    }
    const clip = await speechClip(NAME);
    await expect(recognise(clip, ['xyzzyq plugh'])).rejects.toThrow(
      /not in the pocketsphinx dictionary: xyzzyq, plugh/,
    );
    await expect(recognise('/nonexistent.wav', [HELLO])).rejects.toThrow(/sox could not read/);
    expect(await recognise(clip, [NAME, ...DISTRACTORS])).toBe('yes this is jordan speaking');
  });
});
