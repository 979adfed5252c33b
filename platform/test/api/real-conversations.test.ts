import type { Call } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { type ScriptedCallee, startScriptedCallee } from '@voice/shared/testing/sip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { pollingAccount } from './campaigns-support';
import { createTrunk, telephonyConfig } from './real-calls-support';

/**
 * A real conversation through the public API: an agent of a catalogue type placed with
 * POST /v1/call over a trunk to a scripted baresip callee, and the call record read back over
 * REST: the callee's recognised lines (with confidence) in the transcript, the detail collected,
 * sentiment, summary, opted_out and the recording. The engines are the local defaults.
 */
describe.each(infraModes())('real conversations through the API (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let agentId: string;
  let nextNumber = 0;

  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { ...telephonyConfig(), CONVERSATION_SILENCE_MS: 3000 } });
    acme = await pollingAccount(t, 'Acme');
    const agent = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: acme.key,
      body: {
        name: 'Riley',
        agent_type: 'education_application_follow_up',
        start_flow: 'Hello, my name is Riley, calling from Acme College.',
        end_flow: 'Thanks for your time, goodbye!',
      },
    });
    expect(agent.status, agent.text).toBe(201);
    agentId = agent.body.data.id;
  }, 60_000);
  afterAll(() => t?.stop(), 60_000);

  /** Places a call to a new scripted callee over its own trunk; answers are given turn by turn. */
  async function callCallee(callee: ScriptedCallee): Promise<string> {
    const source = `+1415555${String(6000 + nextNumber++)}`;
    await createTrunk(t.url, acme.key, { uri: callee.uri, numbers: [source] });
    const placed = await api<Envelope<Call>>(t.url, 'POST', '/v1/call', {
      key: acme.key,
      body: {
        agent_id: agentId,
        source_number: source,
        phone_number: '+15550002222',
        metadata: { name: 'Jordan' },
      },
    });
    expect(placed.status, placed.text).toBe(201);
    return placed.body.data.id;
  }

  async function ended(callId: string): Promise<Call> {
    const deadline = Date.now() + 150_000;
    for (;;) {
      const res = await api<Envelope<Call>>(t.url, 'GET', `/v1/calls/${callId}`, { key: acme.key });
      if (res.body.data.ended_at) return res.body.data;
      if (Date.now() > deadline) throw new Error(`call ${callId} did not end: ${res.text}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  it('holds the conversation and reports it in the call record', async () => {
    const callee = await startScriptedCallee({ greeting: 'Hello?' });
    try {
      const callId = await callCallee(callee);
      await callee.answered();
      // Confirms who they are, says they still intend to apply, then skips the optional questions.
      for (const answer of ['Yes.', 'Yes, I am interested.', 'None.', 'No.']) {
        const heard = await callee.heardSpeech({ timeoutMs: 60_000 }).catch((error: Error) => error);
        // A call the agent ended early fails below, on its record, which says why.
        if (heard instanceof Error) break;
        await callee.say(answer);
      }
      const call = await ended(callId);
      expect(call.call_end_reason, JSON.stringify(call.transcript)).toBe('conversation_completed');
      expect(call, JSON.stringify(call.transcript)).toMatchObject({
        status: 'completed',
        call_end_reason: 'conversation_completed',
        ended_by: 'agent',
        sentiment: 'positive',
        opted_out: false,
        telephony: { carrier: 'sip', sip_code: 200 },
      });
      // The one required detail, from the recognised "yes".
      expect(call.details_collection, JSON.stringify(call.transcript)).toMatchObject({
        status: 'complete',
        collected_values: { still_interested: true },
      });
      expect(call.call_summary).toMatch(/Jordan/);
      const user = call.transcript.filter((line) => line.role === 'user');
      expect(user.length, JSON.stringify(call.transcript)).toBeGreaterThanOrEqual(3);
      for (const line of user) {
        expect(line.confidence).toBeGreaterThan(0);
        expect(line.confidence).toBeLessThanOrEqual(1);
      }
      expect(user.some((line) => line.content.includes('interested'))).toBe(true);
      const agentLines = call.transcript.filter((line) => line.role === 'agent');
      expect(agentLines[0]!.content).toContain('my name is Riley');
      expect(agentLines.every((line) => line.confidence === undefined)).toBe(true);
      expect(call.recording_url).not.toBe('');
      const wav = await fetch(call.recording_url);
      expect(wav.status).toBe(200);
      expect((await wav.arrayBuffer()).byteLength).toBeGreaterThan(8000 * 2 * 2 * 5);
    } finally {
      await callee.stop();
    }
  }, 200_000);

  it('records an opt-out on the call when the callee asks not to be called again', async () => {
    const callee = await startScriptedCallee({ greeting: 'Hello?' });
    try {
      const callId = await callCallee(callee);
      await callee.answered();
      await callee.heardSpeech({ timeoutMs: 60_000 });
      await callee.say('Please stop calling me.');
      const call = await ended(callId);
      expect(call).toMatchObject({ status: 'completed', opted_out: true, sentiment: 'negative' });
      expect(
        call.transcript.some((line) => line.role === 'user' && line.content.includes('stop calling')),
      ).toBe(true);
    } finally {
      await callee.stop();
    }
  }, 200_000);
});
