// A telephony instance in a process of its own, for the test of an instance killed mid-call: it
// dials one call (from the environment) on its own in-process bus, prints the dial's reply, and
// carries the call until the test kills it with SIGKILL (no BYE, no cleanup).
import { callRpc, createSql, InProcessBus, loadConfig, TELEPHONY } from '@voice/shared';
import { pino } from 'pino';
import { createTelephonyService } from '../../src';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const log = pino({ level: process.env.CHILD_LOG_LEVEL ?? 'warn' }, pino.destination(2));
const sql = createSql(env('CHILD_DATABASE_URL'), { max: 2, log, applicationName: 'telephony-child' });
const bus = new InProcessBus({ requestTimeoutMs: 5_000, log });
const service = createTelephonyService(
  {
    bus,
    sql,
    log,
    config: loadConfig({
      SIP_BIND_ADDRESS: '127.0.0.1',
      SIP_PORT: '0',
      DATA_DIR: env('CHILD_DATA_DIR'),
      RTP_PORT_MIN: env('CHILD_RTP_MIN'),
      RTP_PORT_MAX: env('CHILD_RTP_MAX'),
    }),
  },
  {
    leaseMs: 900,
    keepAliveMs: 0,
    mediaTimeoutMs: 60_000,
    // Thirty seconds of silence to say: the call stays up until the kill.
    speak: async () => new Int16Array(8000 * 30),
  },
);
await service.start();
const reply = await callRpc(
  bus,
  TELEPHONY.dial,
  {
    call_id: env('CHILD_CALL_ID'),
    trunk_id: env('CHILD_TRUNK_ID'),
    source_number: '+15550001111',
    destination_number: '+15550002222',
    speech: { language: 'en-US', voice: null, start_flow: 'hello', end_flow: 'bye' },
  },
  { requestId: 'child', accountId: env('CHILD_ACCOUNT_ID') },
);
process.stdout.write(`${JSON.stringify({ ...reply, instance_id: service.parts.instance })}\n`);
setInterval(() => {}, 60_000);
