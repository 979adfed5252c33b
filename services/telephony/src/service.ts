import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  defineService,
  type ServiceDeps,
  type ServiceHandle,
  STREAMS,
  serveHealth,
  startOutboxRelay,
} from '@voice/shared';
import { FileRecordingStore, type RecordingStore } from '@voice/shared/recordings';
import { TrunkAdmissions } from './app/admissions';
import { type CallRecordings, StoredRecordings } from './app/call-recordings';
import { Dialer } from './app/dialer';
import type { LiveCallDeps } from './app/live-call';
import { startInstanceKeeper } from './app/lost-calls';
import { telephonyMetrics } from './app/metrics';
import { TrunkRouter } from './app/router';
import { startTrunkKeepAlive } from './app/trunk-health';
import { TrunksApp } from './app/trunks';
import type { ConversationEngines, ConversationSettings } from './conversation/engine';
import { conversationEngines, conversationSettings } from './conversation/engines';
import { conversationMetrics } from './conversation/metrics';
import { callRepository } from './db/call-repository';
import { trunkHealthRepository } from './db/trunk-health-repository';
import { serveCalls } from './handlers/calls';
import { serveTrunks } from './handlers/trunks';
import { RtpPortPool, synthesize } from './media';
import { type SipTimers, SipUserAgent } from './sip';

/** What the telephony service's parts need of each other, and what tests look at. */
export interface TelephonyServiceParts {
  trunks: TrunksApp;
  router: TrunkRouter;
  admissions: TrunkAdmissions;
  dialer: Dialer;
  /** This instance's name: its lease row, and the owner of the calls it dials. */
  instance: string;
  /** The running SIP user agent (after start()). */
  userAgent(): SipUserAgent | undefined;
}

/** Settings a deployment leaves at their defaults and tests shorten. */
export interface TelephonyServiceOptions {
  /** Where finished recordings go; default the recording store below. */
  recordings?: CallRecordings;
  /** The recording store (default: files under DATA_DIR/recordings, as the embedded platform keeps them). */
  recordingStore?: () => Promise<RecordingStore>;
  /** An instance whose lease lapsed this long is dead and its calls end (default 15 s). */
  leaseMs?: number;
  /** No RTP this long after the answer ends a call as failed (default 30 s). */
  mediaTimeoutMs?: number;
  /**
   * Between two OPTIONS keep-alives of a trunk (default 30 s; 0: none, for tests whose far end
   * takes one scripted call), and pings in flight at once (8).
   */
  keepAliveMs?: number;
  keepAliveConcurrency?: number;
  /** Longest wait for a trunk to take a call: a free line, a calls_per_second slot (default 10 min). */
  maxAdmissionWaitMs?: number;
  /** How long stopping waits for live calls to end with BYE or CANCEL (default 5 s). */
  stopTimeoutMs?: number;
  sipTimers?: Partial<SipTimers>;
  /** 8 kHz speech for a text; default espeak-ng (flite as fallback) in the call's language. */
  speak?: (text: string, language: string) => Promise<Int16Array>;
  /** Engines and settings of conversations instead of the configured ones (tests shorten the silence). */
  conversation?: { engines?: Partial<ConversationEngines>; settings?: Partial<ConversationSettings> };
}

/**
 * The telephony service: the accounts' SIP trunks, routing a call to a trunk (or the simulated
 * carrier), per-trunk admission, and real calls: one SIP user agent per instance, RTP media,
 * recordings, progress events through the outbox, and the end of calls whose instance died.
 */
export function createTelephonyService(
  deps: ServiceDeps,
  options: TelephonyServiceOptions = {},
): ServiceHandle & { parts: TelephonyServiceParts } {
  const { config } = deps;
  // The dialer is made below; the live-calls gauge reads it at scrape time.
  const metrics = deps.metrics ? telephonyMetrics(deps.metrics, () => dialer.liveCalls) : undefined;
  const instance = `telephony-${randomUUID().slice(0, 8)}`;
  const trunks = new TrunksApp(deps.sql);
  const router = new TrunkRouter(deps.sql, config.SIMULATED_CARRIER, (m) => metrics?.routed(m));
  const admissions = new TrunkAdmissions(deps.sql, instance, (a) => metrics?.decided(a));
  const leaseMs = options.leaseMs ?? 15_000;
  let ua: SipUserAgent | undefined;
  let ready!: (media: LiveCallDeps) => void;
  const media = new Promise<LiveCallDeps>((resolve) => {
    ready = resolve;
  });
  const dialer = new Dialer(deps.sql, deps.bus, instance, media, (end) => metrics?.ended(end));
  const handle = defineService({
    name: 'telephony',
    subscriptions: [
      serveHealth(deps, 'telephony', async () => ({ trunks: await trunkHealthRepository.summary(deps.sql) })),
      ...serveTrunks(deps, trunks, router),
      ...serveCalls(deps, dialer),
    ],
    background: [
      async () => ({
        // The calls this instance carried end with it: their trunks' slots are free again.
        stop: async () => {
          await admissions.releaseAll().catch((error: unknown) => {
            deps.log.warn({ err: error }, 'telephony: could not release this instance\u2019s trunk slots');
          });
        },
      }),
      () =>
        startOutboxRelay({
          sql: deps.sql,
          bookkeepingSql: deps.bookkeepingSql,
          schema: 'telephony',
          bus: deps.bus,
          log: deps.log,
          streams: [STREAMS.sipCallEvents],
        }),
      async () => {
        const keeper = await startInstanceKeeper({ sql: deps.sql, log: deps.log, instance, leaseMs });
        const engines = { ...conversationEngines(config, deps.log), ...options.conversation?.engines };
        await engines.stt.prepare?.().catch((error: unknown) => {
          // Not fatal: calls whose language it serves fail to recognise, and say so in their records.
          deps.log.warn({ err: error }, 'telephony: the speech recogniser could not load its dictionary');
        });
        ua = await SipUserAgent.start({
          bindAddress: config.SIP_BIND_ADDRESS,
          port: config.SIP_PORT,
          ...(config.SIP_PUBLIC_ADDRESS ? { publicAddress: config.SIP_PUBLIC_ADDRESS } : {}),
          ...(options.sipTimers ? { timers: options.sipTimers } : {}),
          logger: deps.log,
        });
        deps.log.info(
          { instance, sip: `${ua.local.host}:${ua.port}` },
          'telephony: SIP user agent listening',
        );
        ready({
          sql: deps.sql,
          log: deps.log,
          ua,
          pool: new RtpPortPool({
            min: config.RTP_PORT_MIN,
            max: config.RTP_PORT_MAX,
            host: config.SIP_BIND_ADDRESS,
          }),
          rtp: {
            localAddress: ua.local.host,
            publicAddress: config.SIP_PUBLIC_ADDRESS,
            mediaTimeoutMs: options.mediaTimeoutMs ?? 30_000,
          },
          admissions,
          recordings:
            options.recordings ??
            new StoredRecordings(
              options.recordingStore ??
                (() => FileRecordingStore.open(path.join(config.DATA_DIR, 'recordings'))),
              path.join(config.DATA_DIR, 'recordings-in-progress'),
            ),
          speak: options.speak ?? speakLanguage,
          conversation:
            config.CONVERSATIONS === 'off'
              ? undefined
              : {
                  engines,
                  settings: { ...conversationSettings(config), ...options.conversation?.settings },
                  log: deps.log,
                  metrics: deps.metrics ? conversationMetrics(deps.metrics) : undefined,
                },
          maxAdmissionWaitMs: options.maxAdmissionWaitMs ?? 600_000,
        });
        const running = ua;
        return {
          // Live calls end first (BYE or CANCEL, their ended events written), then the sockets close.
          stop: async () => {
            const allEnded = await dialer.close(options.stopTimeoutMs ?? 5_000);
            await running.close();
            await keeper.stop();
            // A call still live keeps the lease until it lapses: then a replica ends it.
            if (allEnded) await dropLease(deps, instance);
          },
        };
      },
      async () =>
        options.keepAliveMs === 0
          ? { stop: async () => {} }
          : startTrunkKeepAlive({
              sql: deps.sql,
              log: deps.log,
              ua: await media.then((m) => m.ua),
              intervalMs: options.keepAliveMs ?? 30_000,
              concurrency: options.keepAliveConcurrency ?? 8,
            }),
    ],
  });
  return Object.assign(handle, {
    parts: { trunks, router, admissions, dialer, instance, userAgent: () => ua },
  });
}

async function dropLease(deps: ServiceDeps, instance: string): Promise<void> {
  await callRepository.dropLease(deps.sql, instance).catch((error: unknown) => {
    deps.log.warn({ err: error }, 'telephony: could not drop this instance\u2019s lease');
  });
}

/** Speech in the call's language (`en-US` -> espeak-ng voice `en-us`), else in the engine's default voice. */
async function speakLanguage(text: string, language: string): Promise<Int16Array> {
  return synthesize(text, { voice: language.toLowerCase() }).catch(() => synthesize(text));
}
