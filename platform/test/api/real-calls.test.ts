import type { Call, CampaignContact } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import {
  answerScenario,
  type Baresip,
  digestScenario,
  freeUdpAndTcpPort,
  rejectScenario,
  ringUntilCancelScenario,
  type Sipp,
  startBaresip,
  startSipp,
  withKeepAlive,
} from '@voice/shared/testing/sip';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts';
import { placeCallAndWait } from '../support/calls';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { campaignApi, pollingAccount } from './campaigns-support';
import {
  CALLEE_SAYS,
  createFlowsAgent,
  createTrunk,
  endedWebhooksFor,
  expectBaresipHeardAgent,
  expectCompletedOverTrunk,
  expectRecordingOfCall,
  statusesOf,
  telephonyConfig,
} from './real-calls-support';
import { settledDeliveries } from './webhook-support';

/**
 * Real calls through the public API, end to end: a trunk created over REST, POST /v1/call, the
 * telephony service dialing over SIP on loopback to baresip (a person: answers, speaks, records)
 * or sipp (scripted answers), the call record, CALL_ENDED webhooks, the recording served with
 * Range, and a campaign over the trunk. (A number no trunk holds with SIMULATED_CARRIER=off is in
 * calls-sip.test.ts.) Keys the person presses reach the transcript; the agent sends none (no
 * flow asks for one), so DTMF out is proven at the telephony level (media-baresip-dtmf.test.ts).
 */
/** Keys baresip, as the person called, presses during the call. */
const PRESSED = '7*3';

describe.each(infraModes())('real calls over a SIP trunk (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let receiver: WebhookReceiver;
  let agentId: string;
  const farEnds: { stop(): Promise<void> }[] = [];
  let nextNumber = 0;
  /** A source number of its own for each trunk, so each call's route is unambiguous. */
  const number = () => `+1415555${String(4000 + nextNumber++)}`;

  beforeAll(async () => {
    // SIP plumbing with announcements (the agent's two flows): conversations over the same path are
    // real-conversations.test.ts's, and sipp's echo of the agent would be no one to talk to.
    t = await startTestPlatform(mode, {
      config: { ...telephonyConfig(), WEBHOOK_RETRY_BASE_MS: 200, CONVERSATIONS: 'off' },
    });
    acme = await pollingAccount(t, 'Acme');
    receiver = await startWebhookReceiver();
    agentId = await createFlowsAgent(t.url, acme.key, `${receiver.url}/ok/hooks`);
  }, 60_000);
  afterEach(async () => {
    await Promise.all(farEnds.splice(0).map((f) => f.stop()));
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  /** sipp playing `scenario` for one call, also answering the trunk's keep-alive pings. */
  const sipp = async (scenario: string, extraArgs: string[] = []): Promise<Sipp> => {
    const far = await startSipp({
      scenario: withKeepAlive(scenario),
      transport: 'udp',
      calls: 100,
      timeoutSeconds: 90,
      extraArgs,
    });
    farEnds.push(far);
    return far;
  };

  /** sipp answering with `scenario` and sending every RTP packet back (its media on a free port). */
  const echoingSipp = async (scenario: string): Promise<Sipp> =>
    sipp(scenario, ['-rtp_echo', '-mp', String(await freeUdpAndTcpPort())]);

  const callFrom = (source_number: string, whenLive?: () => void) =>
    placeCallAndWait(
      t.url,
      acme.key,
      { agent_id: agentId, source_number, phone_number: '+15550002222' },
      60_000,
      whenLive,
    );

  /** The one CALL_ENDED the webhook service delivered for this call, once every delivery is final. */
  const deliveredOnce = async (call: Call, deliveries: number) => {
    await settledDeliveries(t.url, acme.key, agentId, deliveries);
    const events = endedWebhooksFor(receiver.received, call.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ status: call.status, call_end_reason: call.call_end_reason });
  };
  let deliveries = 0;

  it('baresip answers, hears the agent, speaks and presses keys; the record, webhook and recording say so', async () => {
    const baresip: Baresip = await startBaresip(CALLEE_SAYS);
    farEnds.push(baresip);
    const from = number();
    const trunk = await createTrunk(t.url, acme.key, {
      uri: `${baresip.uri};transport=udp`,
      numbers: [from],
    });
    // The person presses keys while the agent speaks (RFC 4733 from baresip's keypad).
    const call = await callFrom(from, () => baresip.press(PRESSED));

    expectCompletedOverTrunk(call, trunk.id, PRESSED);
    expect(call.call_end_reason).toBe('agent_hung_up');
    expect(await statusesOf(t.databaseUrl, call.id)).toEqual([
      'initializing',
      'ringing',
      'in_progress',
      'completed',
    ]);
    await deliveredOnce(call, ++deliveries);
    // The telephony service counts the calls it carried by how they ended.
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^telephony_calls_ended_total\{[^}]*status="completed"[^}]*reason="agent_hung_up"[^}]*\} [1-9]/m,
    );
    expect(metrics).toMatch(/^telephony_live_calls\{[^}]*\} \d+/m);
    await expectRecordingOfCall(call, [t.url], baresip);
    await expectBaresipHeardAgent(baresip, call);
  }, 90_000);

  it.each([
    ['486 Busy Here', { status: 'busy', call_end_reason: 'busy' }],
    ['600 Busy Everywhere', { status: 'busy', call_end_reason: 'busy' }],
    ['480 Temporarily Unavailable', { status: 'no_answer', call_end_reason: 'no_answer' }],
    ['408 Request Timeout', { status: 'no_answer', call_end_reason: 'no_answer' }],
    ['404 Not Found', { status: 'failed', call_end_reason: 'invalid_number' }],
    ['603 Decline', { status: 'failed', call_end_reason: 'declined' }],
    ['503 Service Unavailable', { status: 'failed', call_end_reason: 'carrier_error' }],
  ] as const)(
    'a far end answering %s ends the call as it says, with its SIP code',
    async (answer, outcome) => {
      const far = await sipp(rejectScenario(answer));
      const from = number();
      const trunk = await createTrunk(t.url, acme.key, { uri: far.uri, numbers: [from] });
      const call = await callFrom(from);
      const [code, ...reason] = answer.split(' ');
      expect(call).toMatchObject({
        ...outcome,
        duration_seconds: 0,
        transcript: [],
        telephony: {
          carrier: 'sip',
          trunk_id: trunk.id,
          sip_code: Number(code),
          sip_reason: reason.join(' '),
        },
      });
      await deliveredOnce(call, ++deliveries);
    },
    60_000,
  );

  it('cancels a call still ringing at the trunk’s ring timeout: no_answer, 487', async () => {
    const far = await sipp(ringUntilCancelScenario());
    const from = number();
    const trunk = await createTrunk(t.url, acme.key, {
      uri: far.uri,
      numbers: [from],
      ring_timeout_seconds: 5,
    });
    const call = await callFrom(from);
    expect(call).toMatchObject({
      status: 'no_answer',
      call_end_reason: 'no_answer',
      duration_seconds: 0,
      telephony: { carrier: 'sip', trunk_id: trunk.id, sip_code: 487, sip_reason: 'Request Terminated' },
    });
    await deliveredOnce(call, ++deliveries);
  }, 60_000);

  it.each([401, 407] as const)(
    'answers a %i digest challenge with the trunk’s username and password, and completes',
    async (kind) => {
      const far = await echoingSipp(digestScenario(kind, 'alice', 's3cret-pass'));
      const from = number();
      const trunk = await createTrunk(t.url, acme.key, {
        uri: far.uri,
        numbers: [from],
        username: 'alice',
        password: 's3cret-pass',
      });
      const call = await callFrom(from);
      // sipp's verifyauth answers 403 to a wrong digest (401): completed means ours was right.
      expectCompletedOverTrunk(call, trunk.id);
      await deliveredOnce(call, ++deliveries);
    },
    60_000,
  );

  it('runs a campaign over a one-line trunk: every contact waits for the line, is called over SIP and completes', async () => {
    const far = await echoingSipp(answerScenario({ sdp: true }));
    const from = number();
    // One line, while the campaign places two calls at a time: the second waits for the line.
    const trunk = await createTrunk(t.url, acme.key, {
      uri: far.uri,
      numbers: [from],
      max_concurrent_calls: 1,
    });
    const campaigns = campaignApi(t.url, acme.key);
    const created = await campaigns.create({
      name: 'Over the trunk',
      agent_id: agentId,
      phone_number: from,
      max_concurrent_calls: 2,
      contacts: [
        { phone: '+15550003001', name: 'Ada' },
        { phone: '+15550003002', name: 'Ben' },
        { phone: '+15550003003', name: 'Cy' },
      ],
    });
    const done = await campaigns.waitFor(created.id, (c) => c.status === 'completed', 90_000);
    expect(done.counts).toMatchObject({ total: 3, completed: 3 });
    const contacts: CampaignContact[] = await campaigns.contacts(created.id);
    expect(contacts.map((c) => c.state)).toEqual(['completed', 'completed', 'completed']);
    const calls: Call[] = await campaigns.calls(created.id);
    expect(calls).toHaveLength(3);
    for (const call of calls) expectCompletedOverTrunk(call, trunk.id);
    // The trunk carried one call at a time: each was answered after the one before it ended.
    const byAnswer = [...calls].sort((a, b) => Date.parse(a.answered_at!) - Date.parse(b.answered_at!));
    for (let i = 1; i < byAnswer.length; i++) {
      expect(Date.parse(byAnswer[i]!.answered_at!)).toBeGreaterThanOrEqual(
        Date.parse(byAnswer[i - 1]!.ended_at!),
      );
    }
  }, 120_000);
});
