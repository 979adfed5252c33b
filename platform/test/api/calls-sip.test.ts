import { randomUUID } from 'node:crypto';
import { type Call, type CampaignContact, callRpc, TELEPHONY } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';
import { campaignApi, createAgent, pollingAccount } from './campaigns-support';

const TRUNK_NUMBER = '+14155550300';
const UNROUTED_NUMBER = '+14155550399';

/*
 * Routing at placement against the real telephony service, with the simulated carrier off (as in
 * production): a call no trunk carries is refused, one a trunk carries is placed over SIP. What
 * happens to the dial itself is the telephony service's (services/call/test/sip-calls.test.ts
 * covers the call service's side of it).
 */
describe.each(infraModes())('calls routed to SIP trunks with SIMULATED_CARRIER=off (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let agentId: string;

  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { SIMULATED_CARRIER: 'off' } });
    acme = await pollingAccount(t, 'Acme');
    agentId = await createAgent(t.url, acme.key);
  });
  afterAll(async () => t?.stop());

  const call = (source_number: string) =>
    api<Envelope<Call> & ErrorEnvelope>(t.url, 'POST', '/v1/call', {
      key: acme.key,
      body: { agent_id: agentId, source_number, phone_number: '+14155551234' },
    });

  it('refuses a call no trunk carries with 422 NO_SIP_TRUNK, and stores no call', async () => {
    const refused = await call(UNROUTED_NUMBER);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'source_number'], type: 'no_sip_trunk' }),
    ]);
    const calls = await api<Envelope<{ total: number }>>(t.url, 'GET', '/v1/calls', { key: acme.key });
    expect(calls.body.data.total).toBe(0);
  });

  it('fails a campaign contact whose source number no trunk carries, without a call', async () => {
    const campaigns = campaignApi(t.url, acme.key);
    const created = await campaigns.create({
      name: 'No trunk',
      agent_id: agentId,
      phone_number: UNROUTED_NUMBER,
      contacts: [{ phone: '+14155559300', name: 'Dana' }],
    });
    const done = await campaigns.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toMatchObject({ failed: 1, total: 1 });
    const [contact] = await campaigns.contacts(created.id);
    expect((contact as CampaignContact).failure_reason).toMatch(/^NO_SIP_TRUNK/);
    // `attempts` counts calls placed: this placement was refused, so none, and no call id.
    expect((contact as CampaignContact).attempts).toBe(0);
    expect((contact as CampaignContact).call_ids).toEqual([]);
    expect(await campaigns.calls(created.id)).toHaveLength(0);
  });

  it('places a call from a trunk’s number over SIP and says so on the record', async () => {
    const trunk = await callRpc(
      t.platform.infrastructure.bus,
      TELEPHONY.createTrunk,
      { name: 'Loopback', uri: 'sip:127.0.0.1:9;transport=udp', numbers: [TRUNK_NUMBER] },
      { requestId: randomUUID(), accountId: acme.accountId },
    );
    const placed = await call(TRUNK_NUMBER);
    expect(placed.status, placed.text).toBe(201);
    expect(placed.body.data.telephony).toEqual({
      carrier: 'sip',
      trunk_id: trunk.id,
      sip_code: null,
      sip_reason: null,
    });
  });
});
