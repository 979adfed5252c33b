/**
 * The calling side of the telephony bench, in a process of its own so its CPU time and event loop
 * are the call path's alone: a SipUserAgent and an RtpPortPool, as the telephony service runs them.
 * Commands arrive over IPC from platform/bench/telephony/index.ts; each answer is one message.
 */
import { RtpPortPool, SipUserAgent, synthesize } from '@voice/telephony-service';
import { type ConcurrentCommand, concurrentCalls } from './concurrent';
import { type SetupCommand, sequentialSetups } from './setup-time';

export type CallerCommand = ConcurrentCommand | SetupCommand;
export interface WindowEdge {
  type: 'window';
  edge: 'start' | 'end';
}

const TEXT =
  'Hello, this is the voice platform calling about your order. It shipped this morning and should ' +
  'arrive on Thursday. If you would like to change the delivery address, please say so now.';

/** Speech from the local engine, or a 440 Hz tone when none is installed: the cost per packet is the same. */
async function speechClip(): Promise<{ pcm: Int16Array; source: string }> {
  try {
    return { pcm: await synthesize(TEXT), source: 'espeak-ng speech' };
  } catch {
    const pcm = new Int16Array(8000 * 10);
    for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000));
    return { pcm, source: '440 Hz tone' };
  }
}

async function main(): Promise<void> {
  const send = (message: object) => process.send?.(message);
  const ua = await SipUserAgent.start({ bindAddress: '127.0.0.1' });
  const ports = {
    min: Number(process.env.RTP_PORT_MIN ?? 21000),
    max: Number(process.env.RTP_PORT_MAX ?? 21999),
  };
  const pool = new RtpPortPool({ ...ports, host: '127.0.0.1' });
  const speech = await speechClip();
  process.on('message', (command: CallerCommand) => {
    const run =
      command.type === 'setup'
        ? sequentialSetups(ua, command)
        : concurrentCalls(ua, { pool, ports, speech: speech.pcm }, command, (edge) =>
            send({ type: 'window', edge }),
          );
    run.then(send, (error: unknown) => send({ type: 'error', message: String(error) }));
  });
  // A normal exit, so --cpu-prof (BENCH_CPU_PROF) writes its profile.
  const exit = () => void ua.close().finally(() => process.exit(0));
  process.on('disconnect', exit);
  process.on('SIGTERM', exit);
  process.stdout.write(`caller ready: ${speech.source}, ${(speech.pcm.length / 8000).toFixed(1)} s\n`);
}

void main();
