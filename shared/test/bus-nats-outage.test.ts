import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BusNoRespondersError, NatsBus, type StreamDefinition } from '../src/bus';
import { AppError } from '../src/errors';
import { createLogger, type Logger } from '../src/log';
import { freePort } from '../src/net/free-port';
import { infraModes } from '../testing';
import { rejectionOf } from './support/rejection';

/**
 * Outages need a NATS server of our own to kill and restart, so these run in the `nats` mode
 * only, and only where the nats-server binary is installed (required under REQUIRE_INFRA=1).
 */
const BINARY = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
const hasBinary = existsSync(BINARY);
const required = process.env.REQUIRE_INFRA === '1';
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'bus-nats-outage-test' });
const EVENTS: StreamDefinition = { name: 'OUTAGE', subjects: ['evt.>'], maxAgeMs: 60_000 };
/** "At once": well under the 5 s request timeouts, well over a loaded machine's stalls. */
const AT_ONCE_MS = 2_500;
/** Server starts and reconnections take a second or two; a loaded machine may take several. */
const RECOVERY = { timeout: 30_000, interval: 20 };

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** A logger that keeps the messages it was given, to wait for one. */
function messageLog(): { log: Logger; messages: string[] } {
  const messages: string[] = [];
  const captured = pino({ level: 'debug' }, { write: (line: string) => messages.push(JSON.parse(line).msg) });
  return { log: captured, messages };
}

interface NatsServer {
  stop(): Promise<void>;
}

async function startNatsServer(port: number, storeDir: string): Promise<NatsServer> {
  const child: ChildProcess = spawn(BINARY, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await vi.waitFor(() => {
    if (child.exitCode !== null) throw new Error(`nats-server exited:\n${output}`);
    expect(output).toContain('Server is ready');
  }, RECOVERY);
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The AppError `promise` rejects with. */
const failure = (promise: Promise<unknown>): Promise<AppError> => rejectionOf(promise, AppError);

describe.runIf(infraModes().includes('nats') && (hasBinary || required))(
  'NatsBus during a NATS outage',
  () => {
    let storeDir: string;
    const servers: NatsServer[] = [];
    const buses: NatsBus[] = [];

    beforeAll(async () => {
      if (!hasBinary) throw new Error(`REQUIRE_INFRA=1 but ${BINARY} is missing (set NATS_SERVER_BIN)`);
      storeDir = await mkdtemp(path.join(tmpdir(), 'voice-nats-outage-'));
    });
    afterEach(async () => {
      await Promise.all(buses.splice(0).map((bus) => bus.close()));
      await Promise.all(servers.splice(0).map((server) => server.stop()));
    });
    afterAll(async () => {
      if (storeDir) await rm(storeDir, { recursive: true, force: true });
    });

    async function server(port: number, name: string): Promise<NatsServer> {
      const started = await startNatsServer(port, path.join(storeDir, name));
      servers.push(started);
      return started;
    }

    function connectBus(port: number, connectTimeoutMs: number, busLog: Logger = log): Promise<NatsBus> {
      return NatsBus.connect({
        servers: `nats://127.0.0.1:${port}`,
        name: 'bus-nats-outage',
        prefix: '',
        requestTimeoutMs: 5_000,
        log: busLog,
        connectTimeoutMs,
      }).then((bus) => {
        buses.push(bus);
        return bus;
      });
    }

    it('fails fast with 503 while NATS is down, and works again once it is back', async () => {
      const port = await freePort();
      const first = await server(port, 'restart');
      const bus = await connectBus(port, 2_000);
      const reached = gate();
      const release = gate();
      bus.respond('svc.echo', async (msg) => msg.data);
      bus.respond('svc.slow', async () => {
        reached.open();
        await release.wait;
        return 'late';
      });
      await bus.ensureStream(EVENTS);
      await expect(bus.request('svc.echo', 'before')).resolves.toBe('before');
      await expect(bus.publishDurable('evt.a', {}, { msgId: 'before' })).resolves.toBeUndefined();
      expect(bus.status()).toBe('connected');

      // A request already waiting (held by its responder) when the server dies fails at once, not
      // after its 30 s.
      let failedAt = 0;
      const waiting = failure(bus.request('svc.slow', {}, { timeoutMs: 30_000 })).finally(() => {
        failedAt = performance.now();
      });
      let started: number;
      try {
        await reached.wait;
        started = performance.now();
        await first.stop();
        expect(await waiting).toBeInstanceOf(BusNoRespondersError);
      } finally {
        release.open();
      }
      expect(failedAt - started).toBeLessThan(AT_ONCE_MS);
      await vi.waitFor(() => expect(bus.status()).toBe('reconnecting'), RECOVERY);

      // While it is down: 503 at once for requests and durable publishes.
      started = performance.now();
      const request = await failure(bus.request('svc.echo', 'during', { timeoutMs: 5_000 }));
      expect(request).toBeInstanceOf(BusNoRespondersError);
      expect(request).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      const publish = await failure(bus.publishDurable('evt.a', {}, { msgId: 'during' }));
      expect(publish).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      expect(performance.now() - started).toBeLessThan(AT_ONCE_MS);

      // Back on the same port (and store): the bus reconnects and its responders answer again.
      await server(port, 'restart');
      await vi.waitFor(() => expect(bus.status()).toBe('connected'), RECOVERY);
      await vi.waitFor(
        () => expect(bus.request('svc.echo', 'after', { timeoutMs: 1_000 })).resolves.toBe('after'),
        { ...RECOVERY, interval: 100 },
      );
      await expect(bus.publishDurable('evt.a', {}, { msgId: 'after' })).resolves.toBeUndefined();
    }, 120_000);

    it('keeps retrying the first connection while NATS is not up yet', async () => {
      const port = await freePort();
      const captured = messageLog();
      const connecting = connectBus(port, 60_000, captured.log);
      // Started only once the bus found nobody there and said it keeps trying.
      await vi.waitFor(
        () => expect(captured.messages).toContain('NATS not reachable yet; retrying'),
        RECOVERY,
      );
      await server(port, 'late-start');
      const bus = await connecting;
      expect(bus.status()).toBe('connected');
      bus.respond('svc.echo', async (msg) => msg.data);
      await expect(bus.request('svc.echo', 'hello')).resolves.toBe('hello');
    }, 120_000);

    it('gives up on a wrong address within the connect timeout, naming the address', async () => {
      const port = await freePort();
      const started = performance.now();
      await expect(connectBus(port, 2_000)).rejects.toThrow(
        new RegExp(`could not connect to NATS at nats://127\\.0\\.0\\.1:${port} within 2000 ms`),
      );
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(1_900);
      // It gave up, not kept trying: the bound leaves a loaded machine its stalls.
      expect(elapsed).toBeLessThan(10_000);
    });

    it('stops connecting at once when start-up is abandoned', async () => {
      const port = await freePort();
      const abort = new AbortController();
      const captured = messageLog();
      const connecting = NatsBus.connect({
        servers: `nats://127.0.0.1:${port}`,
        name: 'bus-nats-outage',
        prefix: '',
        requestTimeoutMs: 5_000,
        log: captured.log,
        connectTimeoutMs: 60_000,
        signal: abort.signal,
      });
      // Abandoned while it waits between attempts.
      await vi.waitFor(
        () => expect(captured.messages).toContain('NATS not reachable yet; retrying'),
        RECOVERY,
      );
      const started = performance.now();
      abort.abort(new Error('SIGTERM'));
      await expect(connecting).rejects.toThrow();
      // Not the 60 s connect timeout.
      expect(performance.now() - started).toBeLessThan(AT_ONCE_MS);
    });
  },
);
