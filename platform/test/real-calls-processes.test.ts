import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type Call,
  ConfigSchema,
  createLogger,
  JetStreamRecordingStore,
  openRecordingStore,
} from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase } from '@voice/shared/testing';
import { type Baresip, startBaresip } from '@voice/shared/testing/sip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
} from './api/real-calls-support';
import { settledDeliveries } from './api/webhook-support';
import { createAccount } from './support/accounts';
import { callWhen, placeCallAndWait } from './support/calls';
import { api, type Envelope } from './support/http';
import { natsProcessEnv, type PlatformProcess, spawnPlatform, spawnService } from './support/process';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

const FROM = '+14155554900';

/**
 * The production topology on NATS and PostgreSQL, one process per component: the telephony
 * service in its own process dials baresip over a trunk created through one gateway, the call is
 * placed through another, and both gateways serve its recording from the JetStream recording store.
 */
describe.runIf(infraModes().includes('nats'))('a real call across processes (NATS + PostgreSQL)', () => {
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  let database: TestDatabase;
  let dataDir: string;
  let env: Record<string, string>;
  let processes: PlatformProcess[] = [];
  let gateways: [PlatformProcess, PlatformProcess];
  let telephonyProcess: PlatformProcess;
  let receiver: WebhookReceiver;
  let baresip: Baresip;

  beforeAll(async () => {
    database = await createTestDatabase('nats');
    dataDir = await mkdtemp(path.join(tmpdir(), 'real-calls-'));
    const telephony = telephonyConfig();
    env = natsProcessEnv(
      { databaseUrl: database.url, prefix: 'sip', adminToken },
      {
        // Where the telephony process writes a recording while its call runs.
        DATA_DIR: dataDir,
        DATABASE_POOL_SIZE: '4',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        SIP_BIND_ADDRESS: telephony.SIP_BIND_ADDRESS,
        RTP_PORT_MIN: String(telephony.RTP_PORT_MIN),
        RTP_PORT_MAX: String(telephony.RTP_PORT_MAX),
        // Announcements (the agent's two flows): this is about processes; conversations have their own tests.
        CONVERSATIONS: 'off',
      },
    );
    // The first gateway applies the migrations before the others start.
    const first = await spawnPlatform('gateway', env);
    processes.push(first);
    const rest = await Promise.all([
      spawnPlatform('gateway', env),
      spawnService('agent', env),
      spawnService('call', env),
      spawnService('webhook', env),
      spawnService('telephony', env),
    ]);
    processes.push(...rest);
    gateways = [first, rest[0]!];
    telephonyProcess = rest[4]!;
    [receiver, baresip] = await Promise.all([startWebhookReceiver(), startBaresip(CALLEE_SAYS)]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGTERM')));
    processes = [];
    await baresip?.stop();
    await receiver?.close();
    // The run's private recordings bucket goes with it (the NATS server outlives the run).
    const log = createLogger({ level: 'silent', name: 'test' });
    const store = await openRecordingStore(ConfigSchema.parse(env), { log, name: 'cleanup' }).catch(
      () => undefined,
    );
    if (store instanceof JetStreamRecordingStore) await store.destroy().catch(() => undefined);
    await store?.close();
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('dials over the trunk from the telephony process; the record, webhook and recording hold', async () => {
    const [a, b] = [gateways[0].url!, gateways[1].url!];
    const { key } = await createAccount(
      { url: a, adminToken },
      { plan: 'enterprise', rateLimitPerMinute: 1_000_000 },
    );
    const agentId = await createFlowsAgent(b, key, `${receiver.url}/ok/hooks`);
    const trunk = await createTrunk(b, key, { uri: `${baresip.uri};transport=udp`, numbers: [FROM] });

    const call = await placeCallAndWait(
      a,
      key,
      { agent_id: agentId, source_number: FROM, phone_number: '+15550002222' },
      60_000,
    );
    expectCompletedOverTrunk(call, trunk.id);
    expect(await statusesOf(database.url, call.id)).toEqual([
      'initializing',
      'ringing',
      'in_progress',
      'completed',
    ]);

    await settledDeliveries(b, key, agentId, 1);
    expect(endedWebhooksFor(receiver.received, call.id)).toHaveLength(1);
    await expectRecordingOfCall(call, [a, b], baresip);
    await expectBaresipHeardAgent(baresip, call);
  }, 120_000);

  it('a telephony process killed mid-call: another ends the call once, and nobody is dialed again', async () => {
    const [a, b] = [gateways[0].url!, gateways[1].url!];
    const { key } = await createAccount(
      { url: a, adminToken },
      { plan: 'enterprise', rateLimitPerMinute: 1_000_000 },
    );
    // A start flow that keeps the call up (about a minute of speech) until the kill.
    const agent = await api<Envelope<{ id: string }>>(a, 'POST', '/v1/agents', {
      key,
      body: {
        name: 'Long talker',
        start_flow: Array(12)
          .fill('This is a long message about your appointment tomorrow morning.')
          .join(' '),
        end_flow: 'Goodbye.',
        webhook_config: { url: `${receiver.url}/ok/lost`, events: ['CALL_ENDED'] },
      },
    });
    expect(agent.status, agent.text).toBe(201);
    const from = '+14155554901';
    await createTrunk(b, key, { uri: `${baresip.uri};transport=udp`, numbers: [from] });
    const placed = await api<Envelope<Call>>(a, 'POST', '/v1/call', {
      key,
      body: { agent_id: agent.body.data.id, source_number: from, phone_number: '+15550002222' },
    });
    expect(placed.status, placed.text).toBe(201);
    const id = placed.body.data.id;
    await callWhen(
      a,
      key,
      id,
      (call) => call.status === 'in_progress' || call.ended_at !== null,
      60_000,
    ).then((call) => expect(call.status, JSON.stringify(call)).toBe('in_progress'));

    const killed = telephonyProcess;
    killed.child.kill('SIGKILL');
    await killed.exited;
    processes = processes.filter((p) => p !== killed);
    // Its replacement ends the calls of the instance whose lease lapsed.
    telephonyProcess = await spawnService('telephony', env);
    processes.push(telephonyProcess);

    const ended = await callWhen(b, key, id, (call) => call.ended_at !== null, 90_000);
    expect(ended).toMatchObject({
      status: 'completed',
      ended_by: 'system',
      call_end_reason: 'carrier_error',
    });
    expect(await statusesOf(database.url, id)).toEqual([
      'initializing',
      'ringing',
      'in_progress',
      'completed',
    ]);
    await settledDeliveries(b, key, agent.body.data.id, 1);
    expect(endedWebhooksFor(receiver.received, id)).toHaveLength(1);
  }, 180_000);
});
