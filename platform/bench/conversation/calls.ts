import { randomUUID } from 'node:crypto';
import type { SipCallEnd } from '@voice/shared';
import {
  type CalleeRecording,
  firstSoundMs,
  readMono,
  type ScriptedCallee,
  speechSpans,
  startScriptedCallee,
} from '@voice/shared/testing/sip';
import { sleep } from '../support';
import type { HostClient } from './host-client';
import { childrenNamed } from './load';
import { ANSWERS, CONVERSATION, INTERRUPTION, LONG_SPEECH, SPEECH } from './script';

// The scripted callees' side of the bench's calls: baresip (shared/testing/sip) answers, waits for
// the agent to finish each line, answers it, and records both directions of the call.

/** Every callee alive, so that an interrupted bench stops them (an orphaned baresip spins a core). */
const alive = new Set<ScriptedCallee>();
// A bench that dies anyway takes its baresips with it: an orphan, its stdin closed, busy-loops.
process.once('exit', () => {
  for (const pid of childrenNamed(process.pid, 'baresip')) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

export async function stopAllCallees(): Promise<void> {
  await Promise.allSettled([...alive].map((c) => c.stop()));
  alive.clear();
}

async function callee(greeting: string): Promise<ScriptedCallee> {
  const person = await startScriptedCallee({ greeting, holdSeconds: 150 });
  alive.add(person);
  return person;
}

async function release(person: ScriptedCallee): Promise<void> {
  alive.delete(person);
  await person.stop();
}

export interface DialogueResult {
  callId: string;
  end: SipCallEnd | null;
  /** Why the call did not go as scripted (it is still counted, with what it measured). */
  failure: string | null;
  /** Answers the callee said. */
  answers: number;
  /**
   * Each answered turn as the callee lived it, from baresip's recordings: the end of its answer
   * (what it sent) to the first sound of the agent's reply (what it heard), ms.
   */
  earGapsMs: number[];
}

/** One call of the lead qualifier: the callee answers each of the agent's questions (ANSWERS). */
export async function dialogueCall(host: HostClient): Promise<DialogueResult> {
  const person = await callee('Hello?');
  const callId = randomUUID();
  const said: number[] = [];
  let failure: string | null = null;
  let end: SipCallEnd | null = null;
  let over = false;
  const ended = (async () => {
    await host.dial(callId, person.uri, CONVERSATION, SPEECH);
    return host.ended(callId, 240_000);
  })();
  let dialFailure = '';
  ended.then(
    () => {
      over = true;
    },
    (error: unknown) => {
      dialFailure = `; ${String(error).slice(0, 300)}`;
    },
  );
  try {
    await person.answered(30_000);
    for (const answer of ANSWERS) {
      // The agent's line, then 700 ms of quiet: its turn is over.
      await person.heardSpeech({ timeoutMs: 30_000 });
      if (over) break;
      const moment = await person.say(answer);
      said.push(moment.position?.sentMs ?? Number.NaN);
    }
    // After the last answer the agent says goodbye and hangs up; a callee left waiting hangs up.
    end = await Promise.race([ended, sleep(30_000).then(() => null)]);
    if (!end) {
      failure = 'the agent did not end the call after the last answer';
      await person.hangUp();
      end = await ended;
    }
    return {
      callId,
      end,
      failure,
      answers: said.length,
      earGapsMs: await earGaps(await person.recording(), said),
    };
  } catch (error) {
    // How the call ended tells why (the agent's silence timeout after an answer it never heard...).
    end ??= await Promise.race([ended.catch(() => null), sleep(10_000).then(() => null)]);
    failure ??= `${String(error).slice(0, 300)}${end ? `; the call ended: ${end.call_end_reason} (${end.status}) after hearing ${JSON.stringify(end.heard.map((h) => h.text))}` : dialFailure}`;
    return { callId, end, failure, answers: said.length, earGapsMs: [] };
  } finally {
    await release(person);
  }
}

async function earGaps(recording: CalleeRecording, said: number[]): Promise<number[]> {
  const sent = (await readMono(recording.sent)).samples;
  const heard = (await readMono(recording.heard)).samples;
  // The callee's answers hold short pauses between words; the agent's first sound is its onset.
  const answers = speechSpans(sent, { hangoverMs: 400 });
  const agent = speechSpans(heard, { hangoverMs: 120 });
  const gaps: number[] = [];
  said.forEach((from, i) => {
    const to = said[i + 1] ?? Number.POSITIVE_INFINITY;
    const mine = answers.filter((s) => s.startMs >= from - 20 && s.startMs < to);
    if (mine.length === 0) return;
    const spokeUntil = Math.max(...mine.map((s) => s.endMs));
    const reply = agent.find((s) => s.startMs >= spokeUntil);
    if (reply && reply.startMs < to) gaps.push(reply.startMs - spokeUntil);
  });
  return gaps;
}

export interface BargeInResult {
  callId: string;
  /** The callee's speech onset (what it sent) to the end of the agent's speech (what it heard), ms. */
  latencyMs: number | null;
  /** The agent's call record says its opening was cut. */
  cut: boolean;
  /** Why there is no latency: the call failed, or the agent was in a pause when the callee began. */
  failure: string | null;
}

/**
 * The callee talks over the agent's long opening `delayMs` after a pause between its first words,
 * and hangs up 1.5 s later. Measured as the telephony test of barge-in measures it,
 * from baresip's recordings (one time base within two 20 ms frames).
 */
export async function bargeInCall(host: HostClient, delayMs: number): Promise<BargeInResult> {
  const person = await callee('Hello?');
  const callId = randomUUID();
  let cut = false;
  try {
    await host.dial(callId, person.uri, CONVERSATION, LONG_SPEECH);
    await person.answered(30_000);
    await person.heardSpeech({ timeoutMs: 60_000, quietMs: 100 });
    await sleep(delayMs);
    const interruption = await person.say(INTERRUPTION);
    const sentMs = interruption.position?.sentMs ?? 0;
    // The agent has stopped well before this; its answer would begin after the question's end.
    await sleep(1500);
    await person.hangUp();
    const end = await host.ended(callId, 30_000);
    cut = end.spoken[0]?.interrupted ?? false;
    const { heard, sent } = await person.recording();
    const sentPcm = (await readMono(sent)).samples;
    const onset = firstSoundMs(sentPcm.subarray(Math.floor(sentMs * 8)), 8000, 500);
    if (onset === undefined) return { callId, latencyMs: null, cut, failure: 'no onset in the recording' };
    const spoke = sentMs + onset;
    const agent = speechSpans((await readMono(heard)).samples, { hangoverMs: 120 });
    // Its answer cannot begin before the question has been said and its end heard (over 1.5 s).
    const before = agent.filter((span) => span.startMs < spoke + 500);
    const stopped = Math.max(...before.map((span) => span.endMs));
    if (!(stopped > spoke))
      return { callId, latencyMs: null, cut, failure: 'the agent was in a pause when the callee began' };
    return { callId, latencyMs: stopped - spoke, cut, failure: null };
  } catch (error) {
    return { callId, latencyMs: null, cut, failure: String(error) };
  } finally {
    await release(person);
  }
}
