import { EXAMPLE_IDS } from '@voice/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';

interface Operation {
  operationId: string;
  security?: Record<string, unknown>[];
  requestBody?: { content: Record<string, { example?: unknown }> };
}
interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
}

/** `value` with every string equal to a key of `ids` replaced by its value. */
function withIds(value: unknown, ids: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => withIds(item, ids));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, withIds(child, ids)]));
  }
  return value;
}

/**
 * Path parameters filled by what an example created, as someone trying the examples in order
 * would: the update example changes the trunk (or webhook endpoint) the create example added (its numbers build on the
 * create example's, which another trunk could not list too).
 */
const CREATED: Record<string, string> = {
  '/v1/sip-trunks': 'trunk_id',
  '/v1/webhook-endpoints': 'endpoint_id',
};

/**
 * Every request body example of the served document, sent as Swagger UI's "Try it out" sends it
 * (the example as it is, JSON, with the operation's credentials), is accepted. Examples cannot
 * name real resources, so their placeholder ids (EXAMPLE_IDS) and the path's parameters are
 * replaced by the ids of resources this test created first, or that an earlier example created.
 */
describe('OpenAPI request body examples', () => {
  let t: TestPlatform;
  let doc: OpenApiDoc;
  let account: TestAccount;
  let agentId: string;
  let campaignId: string;

  beforeAll(async () => {
    t = await startTestPlatform('embedded', { config: { SIM_TIME_SCALE: 0.01 } });
    doc = (await api<OpenApiDoc>(t.url, 'GET', '/v1/openapi.json')).body;
    account = await createAccount(t);
    // With a webhook, so that a bulk redelivery has somewhere to send (409 without one).
    const agent = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: account.key,
      body: {
        name: 'Example target',
        start_flow: 'Hello.',
        end_flow: 'Goodbye.',
        webhook_config: { url: 'http://127.0.0.1:9/hooks' },
      },
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.data.id;
    // Scheduled an hour ahead, so the examples that change a campaign find it not finished.
    const campaign = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/campaigns', {
      key: account.key,
      body: {
        name: 'Example target',
        agent_id: agentId,
        phone_number: '+14155550100',
        contacts: [{ phone: '+14155551000' }],
        start_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(campaign.status).toBe(201);
    campaignId = campaign.body.data.id;
  });
  afterAll(async () => t?.stop());

  it('answers every one with a 2xx', async () => {
    const ids = new Map<string, string>([[EXAMPLE_IDS.agent, agentId]]);
    const params: Record<string, string> = {
      agent_id: agentId,
      account_id: account.accountId,
      campaign_id: campaignId,
    };
    const sent: string[] = [];
    for (const [path, byMethod] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(byMethod)) {
        const media = operation.requestBody?.content['application/json'];
        if (!media) continue;
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
          const id = params[name];
          if (!id) throw new Error(`${operation.operationId}: no resource for {${name}}`);
          return id;
        });
        const admin = operation.security?.some((scheme) => 'adminToken' in scheme) ?? false;
        const res = await api<Partial<Envelope<{ id: string }>>>(t.url, method.toUpperCase(), url, {
          key: admin ? t.adminToken : account.key,
          body: withIds(media.example, ids),
        });
        expect(res.status, `${operation.operationId}: ${res.text}`).toBeGreaterThanOrEqual(200);
        expect(res.status, `${operation.operationId}: ${res.text}`).toBeLessThan(300);
        sent.push(operation.operationId);
        const param = method === 'post' ? CREATED[path] : undefined;
        const created = res.body.data?.id;
        if (param && created) params[param] = created;
      }
    }
    expect(sent).toEqual(
      expect.arrayContaining([
        'agentsCreate',
        'agentsUpdate',
        'callsCreate',
        'campaignsCreate',
        'campaignsUpdate',
        'campaignsAddContacts',
        'sipTrunksCreate',
        'sipTrunksUpdate',
        'adminAccountsCreate',
      ]),
    );
    expect(sent.length).toBeGreaterThanOrEqual(9);
  });
});
