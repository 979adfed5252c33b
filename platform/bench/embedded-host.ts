/**
 * The embedded default as `pnpm start` runs it (platform/src/main.ts all: one process, in-process
 * bus, embedded PostgreSQL), plus one thing for the fan-out benchmark: on an IPC `fanout` command
 * it publishes synthetic call status events on the in-process bus, where the call service would,
 * since nothing outside this process can reach that bus. Prints `running at <url>` when serving.
 */
import { createLogger, loadConfig } from '@voice/shared';
import { startPlatform } from '../src/platform';
import { type FanoutCommand, publishFanout } from './publisher';

const config = loadConfig();
const log = createLogger({ level: config.LOG_LEVEL, name: 'voice-all' });
const platform = await startPlatform({ role: 'all', config, log, embedded: true });
process.stdout.write(`running at ${platform.url}\n`);

process.on('message', (message: FanoutCommand) => {
  if (message?.type !== 'fanout') return;
  const bus = platform.infrastructure.bus;
  void publishFanout(message, (subject, event) => void bus.publish(subject, event)).then((done) =>
    process.send?.(done),
  );
});
const stop = () => void platform.stop().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.once('disconnect', stop);
