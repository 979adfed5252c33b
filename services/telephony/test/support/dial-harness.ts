import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type Bus,
  type CallContext,
  CreateSipTrunkBody,
  callRpc,
  createSql,
  EVENTS,
  eventFilter,
  InProcessBus,
  loadConfig,
  NatsBus,
  type SipCallProgress,
  type SipConversation,
  type Sql,
  STREAMS,
  type Subscription,
  TELEPHONY,
} from '@voice/shared';
import { createTestDatabase, type InfraMode, natsUrlOrThrow, type TestDatabase } from '@voice/shared/testing';
import { pino } from 'pino';
import { createTelephonyService, type TelephonyServiceOptions } from '../../src';

type Service = ReturnType<typeof createTelephonyService>;

/** A range of RTP ports of this test process's own, away from media-support's. */
export function rtpRange(): { RTP_PORT_MIN: string; RTP_PORT_MAX: string } {
  const min = 40_000 + (process.pid % 500) * 40;
  return { RTP_PORT_MIN: String(min), RTP_PORT_MAX: String(min + 39) };
}

/** Short timers so failures and takeovers take a second or two. */
export const FAST: TelephonyServiceOptions = {
  leaseMs: 900,
  mediaTimeoutMs: 30_000,
  keepAliveMs: 0,
  stopTimeoutMs: 3_000,
  sipTimers: { t1Ms: 50, transactionTimeoutMs: 1_500, timerDMs: 500 },
};

/**
 * The telephony service on a fresh database and a bus (NATS or in-process), with a consumer of
 * every SIP progress event, as the call service would consume them.
 */
export class DialHarness {
  db!: TestDatabase;
  sql!: Sql;
  bus!: Bus;
  recordings!: string;
  readonly accountId = randomUUID();
  readonly events: SipCallProgress[] = [];
  private readonly services: Service[] = [];
  private consumer: Subscription | undefined;

  constructor(private readonly mode: InfraMode) {}

  async setUp(): Promise<void> {
    this.db = await createTestDatabase(this.mode);
    const log = pino({ level: 'silent' });
    this.sql = createSql(this.db.url, { max: 6, log, applicationName: 'telephony-dial-test' });
    this.bus =
      this.mode === 'nats'
        ? await NatsBus.connect({
            servers: natsUrlOrThrow(),
            name: 'telephony-dial-test',
            prefix: `t${Math.random().toString(36).slice(2, 10)}`,
            requestTimeoutMs: 5_000,
            log,
          })
        : new InProcessBus({ requestTimeoutMs: 5_000, log });
    this.recordings = await mkdtemp(path.join(tmpdir(), 'sip-recordings-'));
    await this.bus.ensureStream(STREAMS.sipCallEvents);
    this.consumer = await this.bus.consume({
      stream: STREAMS.sipCallEvents,
      durable: `dial-test-${randomUUID().slice(0, 8)}`,
      subjects: [eventFilter(EVENTS.sipCallProgress, this.accountId)],
      handler: async (msg) => {
        this.events.push((msg.data as { data: SipCallProgress }).data);
      },
    });
  }

  async start(options: TelephonyServiceOptions = {}): Promise<Service> {
    const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
    const service = createTelephonyService(
      {
        bus: this.bus,
        sql: this.sql,
        log,
        config: loadConfig({
          BUS_PREFIX: '',
          SIP_BIND_ADDRESS: '127.0.0.1',
          SIP_PORT: '0',
          DATA_DIR: this.recordings,
          ...rtpRange(),
        }),
      },
      { ...FAST, ...options },
    );
    await service.start();
    this.services.push(service);
    return service;
  }

  async tearDown(): Promise<void> {
    for (const service of this.services) await service.stop();
    await this.consumer?.unsubscribe();
    await this.bus?.close();
    await this.sql?.end({ timeout: 5 });
    await this.db?.drop();
    await rm(this.recordings, { recursive: true, force: true });
  }

  get ctx(): CallContext {
    return { requestId: randomUUID(), accountId: this.accountId };
  }

  async trunk(uri: string, fields: Record<string, unknown> = {}): Promise<string> {
    const trunks = this.services[0]!.parts.trunks;
    const body = CreateSipTrunkBody.parse({ name: `trunk ${uri}`, uri, ring_timeout_seconds: 10, ...fields });
    return (await trunks.create(this.accountId, body)).id;
  }

  dial(
    trunkId: string,
    callId: string,
    speech: { start_flow: string; end_flow: string },
    conversation?: SipConversation,
    language = 'en-US',
  ) {
    return callRpc(
      this.bus,
      TELEPHONY.dial,
      {
        call_id: callId,
        trunk_id: trunkId,
        source_number: '+15550001111',
        destination_number: '+15550002222',
        speech: { language, voice: null, ...speech },
        ...(conversation ? { conversation } : {}),
      },
      this.ctx,
    );
  }

  hangup(callId: string) {
    return callRpc(this.bus, TELEPHONY.hangup, { call_id: callId }, this.ctx);
  }

  of(callId: string): SipCallProgress[] {
    return this.events.filter((e) => e.call_id === callId).sort((a, b) => a.sequence - b.sequence);
  }

  /** The call's events once its `ended` arrived (within `ms`). */
  async ended(callId: string, ms = 20_000): Promise<SipCallProgress[]> {
    await until(() => this.of(callId).some((e) => e.type === 'ended'), ms, `call ${callId} ended`);
    return this.of(callId);
  }
}

/** Polls `check` until it holds, failing after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
