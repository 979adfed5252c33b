/**
 * Publishes the fan-out benchmark's synthetic call status events on NATS (core publish, as a plain
 * subscriber sees the call service's events), from its own process like the call service.
 * NATS_URL; each command's `prefix` prefixes subjects as the platform's bus does (BUS_PREFIX).
 * Commands arrive over IPC.
 */
import { connect } from '@nats-io/transport-node';
import { type FanoutCommand, publishFanout } from './publisher';

const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
process.on('message', (message: FanoutCommand) => {
  if (message?.type !== 'fanout') return;
  const prefix = message.prefix ? `${message.prefix}.` : '';
  void publishFanout(message, (subject, event) => nc.publish(prefix + subject, JSON.stringify(event))).then(
    async (done) => {
      await nc.flush();
      process.send?.(done);
    },
  );
});
process.send?.({ type: 'ready' });
process.once('disconnect', () => void nc.drain().finally(() => process.exit(0)));
