import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigSchema, createLogger, JetStreamRecordingStore, openRecordingStore } from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase, testInfra } from '@voice/shared/testing';
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
import { placeCallAndWait } from './support/calls';
import { type PlatformProcess, spawnPlatform, spawnService } from './support/process';
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
  let receiver: WebhookReceiver;
  let baresip: Baresip;

  beforeAll(async () => {
    database = await createTestDatabase('nats');
    dataDir = await mkdtemp(path.join(tmpdir(), 'real-calls-'));
    const telephony = telephonyConfig();
    env = {
      NATS_URL: testInfra().natsUrl!,
      DATABASE_URL: database.url,
      BUS_PREFIX: `sip${randomBytes(6).toString('hex')}`,
      ADMIN_TOKEN: adminToken,
      RECORDING_URL_SECRET: `recording-${randomBytes(24).toString('hex')}`,
      // Where the telephony process writes a recording while its call runs.
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_POOL_SIZE: '4',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SIP_BIND_ADDRESS: telephony.SIP_BIND_ADDRESS,
      RTP_PORT_MIN: String(telephony.RTP_PORT_MIN),
      RTP_PORT_MAX: String(telephony.RTP_PORT_MAX),
    };
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
});
