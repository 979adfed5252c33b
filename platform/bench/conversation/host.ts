/**
 * The telephony service of the conversation bench, in a process of its own so its CPU (and that
 * of the engines' processes it starts: pocketsphinx, espeak-ng, flite, sox, all its children)
 * and its event loop are the conversations' alone, apart from the scripted callees the bench
 * drives. Built as the telephony tests build it (createTelephonyService, an in-process bus, its
 * own database), with the deployment's default engines and settings, and a Metrics registry
 * that keeps raw values. Commands arrive over IPC (protocol.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  CreateSipTrunkBody,
  callRpc,
  createSql,
  EVENTS,
  eventFilter,
  InProcessBus,
  loadConfig,
  migrate,
  type SipCallProgress,
  STREAMS,
  TELEPHONY,
} from '@voice/shared';
import { createTelephonyService, migrations } from '@voice/telephony-service';
import { pino } from 'pino';
import { VoiceActivityDetector } from '../../../services/telephony/src/media/analysis';
import type { HostCommand, HostMessage, TakeReply } from './protocol';
import { RawMetrics } from './raw-metrics';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const send = (message: HostMessage) => process.send?.(message);
const log = pino({ level: process.env.HOST_LOG_LEVEL ?? 'warn' }, pino.destination(2));

/**
 * The engine builds each call's VAD itself with the default hangover (700 ms) and offers no
 * setting for it: for the bench's shorter-hangover runs every VAD is given `ms` before each
 * frame, through the VAD's own setHangover. Only the Listener makes VADs. Installed on first use.
 */
let hangoverMs: number | null = null;
let hangoverInstalled = false;
function overrideHangover(ms: number | null): void {
  hangoverMs = ms;
  if (hangoverInstalled || ms === null) return;
  hangoverInstalled = true;
  const push = VoiceActivityDetector.prototype.push;
  VoiceActivityDetector.prototype.push = function (this: VoiceActivityDetector, frame, atMs) {
    if (hangoverMs !== null) this.setHangover(hangoverMs);
    return push.call(this, frame, atMs);
  };
}

async function main(): Promise<void> {
  const sql = createSql(env('HOST_DATABASE_URL'), { max: 4, log, applicationName: 'conversation-bench' });
  await migrate(sql, migrations, log);
  const bus = new InProcessBus({ requestTimeoutMs: 10_000, log });
  const metrics = new RawMetrics({ role: 'telephony' });
  const service = createTelephonyService(
    {
      bus,
      sql,
      log,
      metrics,
      config: loadConfig({
        BUS_PREFIX: '',
        SIP_BIND_ADDRESS: '127.0.0.1',
        SIP_PORT: '0',
        DATA_DIR: env('HOST_DATA_DIR'),
        RTP_PORT_MIN: env('HOST_RTP_MIN'),
        RTP_PORT_MAX: env('HOST_RTP_MAX'),
      }),
    },
    // Each scripted callee takes one call: no OPTIONS keep-alives to it.
    { keepAliveMs: 0, stopTimeoutMs: 3_000 },
  );
  await service.start();

  const accountId = randomUUID();
  await bus.ensureStream(STREAMS.sipCallEvents);
  await bus.consume({
    stream: STREAMS.sipCallEvents,
    durable: 'conversation-bench',
    subjects: [eventFilter(EVENTS.sipCallProgress, accountId)],
    handler: async (msg) => {
      const progress = (msg.data as { data: SipCallProgress }).data;
      if (progress.type === 'ended' && progress.end)
        send({ type: 'ended', callId: progress.call_id, end: progress.end });
    },
  });

  const run = async (command: HostCommand): Promise<unknown> => {
    switch (command.type) {
      case 'dial': {
        const body = CreateSipTrunkBody.parse({
          name: `callee ${command.uri}`,
          uri: command.uri,
          ring_timeout_seconds: 20,
        });
        const trunk = await service.parts.trunks.create(accountId, body);
        return callRpc(
          bus,
          TELEPHONY.dial,
          {
            call_id: command.callId,
            trunk_id: trunk.id,
            source_number: '+15550001111',
            destination_number: '+15550002222',
            speech: { language: 'en-US', voice: null, ...command.speech },
            conversation: command.conversation,
          },
          { requestId: randomUUID(), accountId },
        );
      }
      case 'take': {
        const reply: TakeReply = {
          observed: metrics.take(),
          bargeIns: await metrics.counterTotal('conversation_barge_ins_total'),
        };
        return reply;
      }
      case 'hangover':
        overrideHangover(command.ms);
        return undefined;
    }
  };
  process.on('message', (command: HostCommand) => {
    run(command).then(
      (value) => send({ type: 'reply', id: command.id, ok: true, value }),
      (error: unknown) => send({ type: 'reply', id: command.id, ok: false, error: String(error) }),
    );
  });

  const exit = () =>
    void service
      .stop()
      .then(() => sql.end({ timeout: 5 }))
      .finally(() => process.exit(0));
  process.on('disconnect', exit);
  process.on('SIGTERM', exit);
  process.stdout.write('conversation host ready\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`conversation host failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
