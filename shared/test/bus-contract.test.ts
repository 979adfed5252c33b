import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type Bus,
  type BusMessage,
  BusNoRespondersError,
  BusRemoteError,
  BusTimeoutError,
  type DurableMessage,
  DurablePublishRefusedError,
  InProcessBus,
  NatsBus,
  type StreamDefinition,
  subjectMatches,
} from '../src/bus';
import { AppError, type ValidationIssue } from '../src/errors';
import type { Logger } from '../src/log';
import { infraModes, natsUrlOrThrow } from '../testing';
import { rejectionOf } from './support/rejection';

type LogLine = Record<string, unknown> & { msg: string; level: number };
type MakeBus = (log: Logger) => Promise<Bus>;

const HEADERS = {
  'x-request-id': 'req-123',
  'x-account-id': 'acc-9',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
};
const EVENTS: StreamDefinition = { name: 'EVENTS', subjects: ['evt.>'], maxAgeMs: 60_000 };
// How long to wait for a delivery: it normally takes milliseconds, but a loaded machine may stall a
// worker for seconds, and a longer wait costs nothing when the delivery comes.
const WAIT = { timeout: 15_000, interval: 5 };
/** Every bus's default request timeout here: far above a loaded machine's stalls. */
const REQUEST_TIMEOUT_MS = 10_000;
/** "At once": well under any request timeout, so only a failure that waited for one exceeds it. */
const AT_ONCE_MS = REQUEST_TIMEOUT_MS / 2;
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function capturingLogger(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
  return { log, lines };
}

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** The AppError `promise` rejects with. */
const failure = (promise: Promise<unknown>): Promise<AppError> => rejectionOf(promise, AppError);

function busContract(name: string, makeBus: MakeBus): void {
  describe(name, () => {
    const open: Bus[] = [];
    let lines: LogLine[] = [];
    async function newBus(): Promise<Bus> {
      const captured = capturingLogger();
      lines = captured.lines;
      const bus = await makeBus(captured.log);
      open.push(bus);
      return bus;
    }
    afterEach(async () => {
      await Promise.all(open.splice(0).map((bus) => bus.close()));
    });

    it('request/reply round-trips data and headers through JSON', async () => {
      const bus = await newBus();
      const seen: BusMessage[] = [];
      bus.respond('svc.echo', async (msg) => {
        seen.push(msg);
        return { echoed: msg.data, at: new Date(0) };
      });
      const reply = await bus.request('svc.echo', { a: 1, list: [1, 'two', null] }, { headers: HEADERS });
      expect(reply).toEqual({ echoed: { a: 1, list: [1, 'two', null] }, at: '1970-01-01T00:00:00.000Z' });
      expect(seen).toEqual([
        { subject: 'svc.echo', data: { a: 1, list: [1, 'two', null] }, headers: HEADERS },
      ]);
      bus.respond('svc.nothing', async () => null);
      await expect(bus.request('svc.nothing', null)).resolves.toBeNull();
    });

    it('carries a reply larger than one NATS message (3 MB, split inside multi-byte characters)', async () => {
      const bus = await newBus();
      // 3-byte characters, so part boundaries fall inside characters; 1 MB is the server's default limit.
      const big = { items: range(3).map((i) => `${i}:${'\u20ac'.repeat(350_000)}`), error: null };
      bus.respond('svc.big', async (msg) => ({ ...big, asked: msg.data }));
      const replies = await Promise.all(
        range(3).map((i) => bus.request('svc.big', { i }, { timeoutMs: 10_000 })),
      );
      for (const [i, reply] of replies.entries()) expect(reply).toEqual({ ...big, asked: { i } });
      bus.respond('svc.big-failure', async () => {
        throw new AppError(
          'VALIDATION_FAILED',
          range(20_000).map((n) => ({ loc: ['body', n], msg: 'x'.repeat(50), type: 't' })),
        );
      });
      const error = await failure(bus.request('svc.big-failure', {}, { timeoutMs: 10_000 }));
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.detail).toHaveLength(20_000);
    });

    it('times out with BusTimeoutError (504 SERVICE_TIMEOUT)', async () => {
      const bus = await newBus();
      // The responder answers only after the request gave up, however slow the machine.
      const answered = gate();
      bus.respond('svc.slow', () => answered.wait.then(() => 'late'));
      const started = Date.now();
      const error = await failure(bus.request('svc.slow', {}, { timeoutMs: 100 }));
      const elapsed = Date.now() - started;
      answered.open();
      expect(error).toBeInstanceOf(BusTimeoutError);
      expect(error).toMatchObject({ code: 'SERVICE_TIMEOUT', status: 504, subject: 'svc.slow' });
      expect(elapsed).toBeGreaterThanOrEqual(90);
      // The 100 ms asked for, not the bus's default.
      expect(elapsed).toBeLessThan(AT_ONCE_MS);
    });

    it('fails at once with BusNoRespondersError when nobody listens, also after unsubscribe', async () => {
      const bus = await newBus();
      let started = Date.now();
      const error = await failure(bus.request('svc.nobody', {}, { timeoutMs: REQUEST_TIMEOUT_MS }));
      expect(error).toBeInstanceOf(BusNoRespondersError);
      expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, subject: 'svc.nobody' });
      expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);

      const sub = bus.respond('svc.gone', async () => 'here');
      await expect(bus.request('svc.gone', {})).resolves.toBe('here');
      await sub.unsubscribe();
      started = Date.now();
      expect(await failure(bus.request('svc.gone', {}, { timeoutMs: REQUEST_TIMEOUT_MS }))).toBeInstanceOf(
        BusNoRespondersError,
      );
      expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);
    });

    it('carries a remote AppError code and detail, including 422 issues', async () => {
      const bus = await newBus();
      const issues: ValidationIssue[] = [
        { loc: ['body', 'phone'], msg: 'Invalid phone number', type: 'invalid_format' },
      ];
      bus.respond('svc.calls.get', async (msg) => {
        if (msg.data === 'missing') throw new AppError('CALL_NOT_FOUND', 'Call c-1 does not exist');
        throw AppError.validation(issues);
      });
      const notFound = await failure(bus.request('svc.calls.get', 'missing'));
      expect(notFound).toBeInstanceOf(BusRemoteError);
      expect(notFound).toMatchObject({
        code: 'CALL_NOT_FOUND',
        status: 404,
        detail: 'Call c-1 does not exist',
      });
      const invalid = await failure(bus.request('svc.calls.get', 'invalid'));
      expect(invalid).toBeInstanceOf(BusRemoteError);
      expect(invalid).toMatchObject({ code: 'VALIDATION_FAILED', status: 422, subject: 'svc.calls.get' });
      expect(invalid.detail).toEqual(issues);
    });

    it('turns a non-AppError into INTERNAL without leaking it, and logs it with the request id', async () => {
      const bus = await newBus();
      bus.respond('svc.boom', async () => {
        throw new Error('password=hunter2 at db.internal:5432');
      });
      const error = await failure(bus.request('svc.boom', {}, { headers: HEADERS }));
      expect(error).toMatchObject({ code: 'INTERNAL', status: 500, detail: 'Internal server error' });
      expect(JSON.stringify({ message: error.message, detail: error.detail })).not.toContain('hunter2');
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'responder failed', request_id: 'req-123' }),
      );
    });

    it('shares requests in a queue group and gives every plain subscriber every publish', async () => {
      const bus = await newBus();
      const handled = { a: [] as number[], b: [] as number[] };
      for (const member of ['a', 'b'] as const) {
        const responder = async (msg: BusMessage): Promise<string> => {
          handled[member].push(msg.data as number);
          return member;
        };
        bus.respond('svc.work', responder, { queue: 'workers' });
      }
      const replies = await Promise.all(range(20).map((i) => bus.request('svc.work', i)));
      expect(handled.a.length).toBeGreaterThan(0);
      expect(handled.b.length).toBeGreaterThan(0);
      expect([...handled.a, ...handled.b].sort((x, y) => x - y)).toEqual(range(20));
      expect(replies.filter((r) => r === 'a')).toHaveLength(handled.a.length);

      const plain1: unknown[] = [];
      const plain2: unknown[] = [];
      const queued: unknown[] = [];
      bus.subscribe('evt.fan', (msg) => void plain1.push(msg.data));
      bus.subscribe('evt.fan', (msg) => void plain2.push(msg.data));
      bus.subscribe('evt.fan', (msg) => void queued.push(msg.data), { queue: 'g' });
      bus.subscribe('evt.fan', (msg) => void queued.push(msg.data), { queue: 'g' });
      for (const i of [...range(10), 'end']) await bus.publish('evt.fan', i);
      await vi.waitFor(() => {
        expect(plain1).toContain('end');
        expect(plain2).toContain('end');
        expect(queued).toContain('end');
      }, WAIT);
      expect(plain1).toEqual([...range(10), 'end']);
      expect(plain2).toEqual([...range(10), 'end']);
      expect(queued.length).toBe(11);
      expect(new Set(queued).size).toBe(11);
    });

    it('keeps delivering after a subscriber throws, and logs the failure', async () => {
      const bus = await newBus();
      const seen: unknown[] = [];
      bus.subscribe('evt.flaky', (msg) => {
        seen.push(msg.data);
        if (msg.data === 1) throw new Error('listener broke');
      });
      await bus.publish('evt.flaky', 1, HEADERS);
      await bus.publish('evt.flaky', 2, HEADERS);
      await vi.waitFor(() => expect(seen).toEqual([1, 2]), WAIT);
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'subscriber failed', subject: 'evt.flaky' }),
      );
    });

    it('matches * (one token) and > (one or more trailing tokens)', async () => {
      const bus = await newBus();
      const star: string[] = [];
      const tail: string[] = [];
      bus.subscribe('wild.*.c', (msg) => void star.push(msg.subject));
      bus.subscribe('wild.>', (msg) => void tail.push(msg.subject));
      bus.respond('svc.wild.*', async (msg) => msg.subject);
      for (const subject of ['wild.b.c', 'wild', 'wild.b', 'wild.b.c.d', 'other.b.c', 'wild.end.c']) {
        await bus.publish(subject, null);
      }
      await vi.waitFor(() => {
        expect(star).toContain('wild.end.c');
        expect(tail).toContain('wild.end.c');
      }, WAIT);
      expect(star).toEqual(['wild.b.c', 'wild.end.c']);
      expect(tail).toEqual(['wild.b.c', 'wild.b', 'wild.b.c.d', 'wild.end.c']);
      await expect(bus.request('svc.wild.x', null)).resolves.toBe('svc.wild.x');
    });

    it('delivers a durable event with its id, headers and deliveryCount 1, honouring filters', async () => {
      const bus = await newBus();
      await bus.ensureStream(EVENTS);
      const got: DurableMessage[] = [];
      await bus.consume({
        stream: EVENTS,
        durable: 'calls',
        subjects: ['evt.call.>'],
        handler: async (msg) => void got.push(msg),
      });
      await bus.publishDurable('evt.other.thing', { skip: true }, { msgId: 'e-0' });
      await bus.publishDurable('evt.call.started', { callId: 'c1' }, { msgId: 'e-1', headers: HEADERS });
      await vi.waitFor(() => expect(got).toHaveLength(1), WAIT);
      expect(got[0]).toEqual({
        subject: 'evt.call.started',
        data: { callId: 'c1' },
        headers: HEADERS,
        id: 'e-1',
        deliveryCount: 1,
      });
    });

    it('redelivers a failed durable event after the retry delay with deliveryCount 2', async () => {
      const bus = await newBus();
      const attempts: { count: number; id: string; at: number }[] = [];
      const delays: number[] = [];
      await bus.consume({
        stream: EVENTS,
        durable: 'retry',
        subjects: ['evt.>'],
        retryDelayMs: (count) => {
          delays.push(count);
          return 50;
        },
        handler: async (msg) => {
          attempts.push({ count: msg.deliveryCount, id: msg.id, at: Date.now() });
          if (msg.deliveryCount === 1) throw new Error('transient');
        },
      });
      await bus.publishDurable('evt.call.retry', {}, { msgId: 'r-1' });
      await vi.waitFor(() => expect(attempts).toHaveLength(2), WAIT);
      expect(attempts.map((a) => [a.id, a.count])).toEqual([
        ['r-1', 1],
        ['r-1', 2],
      ]);
      const gap = attempts[1]!.at - attempts[0]!.at;
      expect(gap).toBeGreaterThanOrEqual(45);
      // The 50 ms asked for, not the ack wait (30 s): a loaded machine may add seconds, not that.
      expect(gap).toBeLessThan(AT_ONCE_MS);
      expect(delays).toEqual([1]);
      expect(lines).toContainEqual(
        expect.objectContaining({ event_id: 'r-1', delivery: 1, retry_in_ms: 50 }),
      );
    });

    it('delivers a duplicate msgId once', async () => {
      const bus = await newBus();
      const got: DurableMessage[] = [];
      await bus.consume({
        stream: EVENTS,
        durable: 'dedupe',
        subjects: ['evt.>'],
        handler: async (m) => void got.push(m),
      });
      await bus.publishDurable('evt.call.x', { n: 1 }, { msgId: 'dup-1' });
      await bus.publishDurable('evt.call.x', { n: 2 }, { msgId: 'dup-1' });
      await bus.publishDurable('evt.call.x', { n: 3 }, { msgId: 'after' });
      await vi.waitFor(() => expect(got.map((m) => m.id)).toContain('after'), WAIT);
      expect(got.map((m) => [m.id, m.data])).toEqual([
        ['dup-1', { n: 1 }],
        ['after', { n: 3 }],
      ]);
    });

    it('shares one durable between replicas with no event handled by both', async () => {
      const bus = await newBus();
      const handled = { a: [] as string[], b: [] as string[] };
      for (const replica of ['a', 'b'] as const) {
        await bus.consume({
          stream: EVENTS,
          durable: 'workers',
          subjects: ['evt.job.>'],
          maxInFlight: 4,
          handler: async (msg) => {
            handled[replica].push(msg.id);
            await sleep(10);
          },
        });
      }
      await Promise.all(
        range(20).map((i) => bus.publishDurable(`evt.job.${i}`, { i }, { msgId: `job-${i}` })),
      );
      await vi.waitFor(() => expect(handled.a.length + handled.b.length).toBe(20), WAIT);
      await sleep(50);
      expect(handled.a.length).toBeGreaterThan(0);
      expect(handled.b.length).toBeGreaterThan(0);
      expect(new Set([...handled.a, ...handled.b]).size).toBe(20);
      expect(handled.a.length + handled.b.length).toBe(20);
    });

    it('makes a durable publish reach plain subscribers; an undeclared subject is refused', async () => {
      const bus = await newBus();
      await bus.ensureStream(EVENTS);
      const plain: BusMessage[] = [];
      bus.subscribe('evt.>', (msg) => void plain.push(msg));
      await bus.publishDurable('evt.call.ended', { x: 1 }, { msgId: 'e-9', headers: HEADERS });
      await vi.waitFor(() => expect(plain).toHaveLength(1), WAIT);
      expect(plain[0]).toEqual({ subject: 'evt.call.ended', data: { x: 1 }, headers: HEADERS });
      const error = await failure(bus.publishDurable('nowhere.x', {}, { msgId: 'e-10' }));
      expect(error).toBeInstanceOf(BusNoRespondersError);
    });

    it('a consumer that starts after the publish still receives it, and a durable resumes', async () => {
      const bus = await newBus();
      await bus.ensureStream(EVENTS);
      // Resolves with no consumer registered: the stream keeps the event.
      await bus.publishDurable('evt.call.late', { n: 1 }, { msgId: 'late-1', headers: HEADERS });
      await bus.publishDurable('evt.other.late', { n: 0 }, { msgId: 'late-0' });
      const got: DurableMessage[] = [];
      const sub = await bus.consume({
        stream: EVENTS,
        durable: 'late',
        subjects: ['evt.call.>'],
        handler: async (m) => void got.push(m),
      });
      await bus.publishDurable('evt.call.late', { n: 2 }, { msgId: 'late-2' });
      await vi.waitFor(() => expect(got.map((m) => m.id)).toContain('late-2'), WAIT);
      expect(got.map((m) => [m.id, m.data, m.deliveryCount])).toEqual([
        ['late-1', { n: 1 }, 1],
        ['late-2', { n: 2 }, 1],
      ]);
      expect(got[0]!.headers).toEqual(HEADERS);

      // A durable keeps its place without replicas: the next replica gets only what it missed.
      await sub.unsubscribe();
      await bus.publishDurable('evt.call.late', { n: 3 }, { msgId: 'late-3' });
      const resumed: string[] = [];
      await bus.consume({
        stream: EVENTS,
        durable: 'late',
        subjects: ['evt.call.>'],
        handler: async (m) => void resumed.push(m.id),
      });
      await vi.waitFor(() => expect(resumed).toEqual(['late-3']), WAIT);
      await sleep(100);
      expect(resumed).toEqual(['late-3']);
      expect(got.map((m) => m.id)).toEqual(['late-1', 'late-2']);
    });

    it('documents when publishDurable resolves while a consumer is still working', async () => {
      const bus = await newBus();
      const reached = gate();
      const release = gate();
      let handled = false;
      await bus.consume({
        stream: EVENTS,
        durable: 'blocked',
        subjects: ['evt.>'],
        handler: async () => {
          reached.open();
          await release.wait;
          handled = true;
        },
      });
      let resolved = false;
      const published = bus.publishDurable('evt.call.block', {}, { msgId: 'b-1' }).then(() => {
        resolved = true;
      });
      if (bus.kind === 'nats') {
        // Resolves once JetStream stored it, with the consumer still held.
        await published;
        expect(handled).toBe(false);
      } else {
        // Only once every consumer acked it: not while the consumer is held (a quiet 100 ms).
        await reached.wait;
        await sleep(100);
        expect(resolved).toBe(false);
      }
      release.open();
      await published;
      await vi.waitFor(() => expect(handled).toBe(true), WAIT);
    });

    // The bound catches a hang (an unsubscribe that never ends), not a slow machine.
    it('unsubscribes or closes promptly right after consume() returns', { timeout: 20_000 }, async () => {
      const bus = await newBus();
      for (const i of range(5)) {
        const sub = await bus.consume({
          stream: EVENTS,
          durable: `quick-${i}`,
          subjects: ['evt.>'],
          handler: async () => {},
        });
        await sub.unsubscribe();
      }
      await bus.consume({
        stream: EVENTS,
        durable: 'quick-close',
        subjects: ['evt.>'],
        handler: async () => {},
      });
      await bus.close();
    });

    it('close() waits for in-flight responders and durable handlers, then refuses work', async () => {
      const bus = await newBus();
      const started = gate();
      let finished = false;
      bus.respond('svc.closing', async () => {
        started.open();
        await sleep(150);
        finished = true;
        return 'done';
      });
      const reply = bus.request('svc.closing', {});
      await started.wait;
      await bus.close();
      expect(finished).toBe(true);
      await expect(reply).resolves.toBe('done');
      await expect(bus.request('svc.closing', {})).rejects.toBeInstanceOf(BusNoRespondersError);
      await expect(bus.publish('evt.x', {})).rejects.toBeInstanceOf(BusNoRespondersError);
      await expect(bus.publishDurable('evt.x', {}, { msgId: 'z' })).rejects.toBeInstanceOf(
        BusNoRespondersError,
      );

      const durableBus = await newBus();
      const durableStarted = gate();
      let durableFinished = false;
      await durableBus.consume({
        stream: EVENTS,
        durable: 'closing',
        subjects: ['evt.>'],
        handler: async () => {
          durableStarted.open();
          await sleep(150);
          durableFinished = true;
        },
      });
      void durableBus.publishDurable('evt.call.closing', {}, { msgId: 'c-1' }).catch(() => {});
      await durableStarted.wait;
      await durableBus.close();
      expect(durableFinished).toBe(true);
    });
  });
}

describe('subjectMatches', () => {
  it.each([
    ['a.b', 'a.b', true],
    ['a.*', 'a.b', true],
    ['a.*', 'a.b.c', false],
    ['a.*.c', 'a.b.c', true],
    ['a.>', 'a.b.c', true],
    ['a.>', 'a', false],
    ['>', 'a', true],
    ['a.b', 'a.b.c', false],
    ['a.b.c', 'a.b', false],
    ['*.b', 'x.b', true],
    ['a.bc', 'a.bd', false],
    ['a.b', 'a.bc', false],
    ['a.*', 'a.', true],
    ['a..>', 'a..b', true],
  ])('%s vs %s → %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });

  /** The definition, token by token, that subjectMatches implements without splitting. */
  function bySplit(pattern: string, subject: string): boolean {
    const p = pattern.split('.');
    const s = subject.split('.');
    for (let i = 0; i < p.length; i++) {
      if (p[i] === '>') return s.length > i;
      if (i >= s.length) return false;
      if (p[i] !== '*' && p[i] !== s[i]) return false;
    }
    return p.length === s.length;
  }

  it('agrees with the token-by-token definition on generated subjects', () => {
    const token = fc.constantFrom('a', 'b', 'ab', '', '*', '>');
    const subjectOf = (t: fc.Arbitrary<string>) =>
      fc.array(t, { minLength: 1, maxLength: 5 }).map((tokens) => tokens.join('.'));
    fc.assert(
      fc.property(subjectOf(token), subjectOf(fc.constantFrom('a', 'b', 'ab', '')), (pattern, subject) => {
        expect(subjectMatches(pattern, subject)).toBe(bySplit(pattern, subject));
      }),
      { numRuns: 5_000 },
    );
  });
});

busContract('InProcessBus', async (log) => new InProcessBus({ requestTimeoutMs: REQUEST_TIMEOUT_MS, log }));

const natsEnabled = infraModes().includes('nats');

describe.runIf(natsEnabled)('NatsBus', () => {
  const prefixes: string[] = [];
  const newPrefix = (): string => {
    const prefix = `t${randomBytes(5).toString('hex')}`;
    prefixes.push(prefix);
    return prefix;
  };
  const connectBus = (log: Logger, prefix = newPrefix()): Promise<NatsBus> =>
    NatsBus.connect({
      servers: natsUrlOrThrow(),
      name: 'bus-contract',
      prefix,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      log,
    });

  let raw: NatsConnection;
  beforeAll(async () => {
    raw = await connect({ servers: natsUrlOrThrow() });
  });
  afterAll(async () => {
    const jsm = await jetstreamManager(raw);
    for await (const name of jsm.streams.names()) {
      if (prefixes.some((p) => name.startsWith(`${p}_`))) await jsm.streams.delete(name);
    }
    await raw.close();
  });

  busContract('contract', (log) => connectBus(log));

  describe('NATS specifics', () => {
    const buses: Bus[] = [];
    const quiet = pino({ level: 'silent' });
    afterEach(async () => {
      await Promise.all(buses.splice(0).map((bus) => bus.close()));
    });

    it('sends the requests and replies of one event-loop turn in one socket write each way', async () => {
      const prefix = newPrefix();
      const caller = await connectBus(quiet, prefix);
      const server = await connectBus(quiet, prefix);
      buses.push(caller, server);
      server.respond('batch.echo', async (msg) => msg.data);
      // A round trip on the server's own connection proves its subscription reached the server;
      // before that the caller's request may find no responder.
      await server.request('batch.echo', 'warm-up');
      await caller.request('batch.echo', 'warm-up');
      const natsPort = Number(new URL(natsUrlOrThrow()).port || 4222);
      const write = Socket.prototype.write;
      let writes = 0;
      const counting = function (this: Socket, ...args: Parameters<Socket['write']>) {
        if (this.remotePort === natsPort) writes++;
        return write.apply(this, args);
      } as Socket['write'];
      Socket.prototype.write = counting;
      try {
        // Twenty timers due together fire in one turn, each its own callback, as requests arriving
        // on twenty HTTP sockets do: nats.js alone would write each request on its own.
        const answers = await Promise.all(
          Array.from(
            { length: 20 },
            (_, i) =>
              new Promise<unknown>((resolve, reject) =>
                setTimeout(() => caller.request('batch.echo', i).then(resolve, reject), 0),
              ),
          ),
        );
        expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => i));
      } finally {
        Socket.prototype.write = write;
      }
      // One write of the twenty requests and one of the twenty replies (a reply may straggle into
      // a second turn if the requests arrive in two reads); without batching at least 20.
      expect(writes).toBeGreaterThanOrEqual(2);
      expect(writes).toBeLessThanOrEqual(4);
    });

    it('sends a responder’s publishes with its replies, in the order they were made', async () => {
      const prefix = newPrefix();
      const caller = await connectBus(quiet, prefix);
      const server = await connectBus(quiet, prefix);
      buses.push(caller, server);
      const COUNT = 10;
      let arrived = 0;
      let release: () => void = () => {};
      const allArrived = new Promise<void>((resolve) => {
        release = resolve;
      });
      // As a service answers requests whose work finished together (one group commit): each
      // announces what it did, then answers, all in one turn.
      server.respond('batch.announce', async (msg) => {
        if (msg.data !== 'warm-up' && ++arrived === COUNT) release();
        if (msg.data !== 'warm-up') await allArrived;
        await server.publish('batch.announced', msg.data);
        return msg.data;
      });
      // As above: the server's own round trip first, so the caller finds the responder.
      await server.request('batch.announce', 'warm-up');
      const order: string[] = [];
      caller.subscribe('batch.announced', (msg) => void order.push(`event ${String(msg.data)}`));
      await caller.request('batch.announce', 'warm-up');
      await vi.waitFor(() => expect(order).toEqual(['event warm-up']), WAIT);
      order.length = 0;
      const natsPort = Number(new URL(natsUrlOrThrow()).port || 4222);
      const write = Socket.prototype.write;
      let writesAfterRelease = 0;
      let released = false;
      void allArrived.then(() => {
        released = true;
      });
      const counting = function (this: Socket, ...args: Parameters<Socket['write']>) {
        if (released && this.remotePort === natsPort) writesAfterRelease++;
        return write.apply(this, args);
      } as Socket['write'];
      Socket.prototype.write = counting;
      try {
        const answers = await Promise.all(
          Array.from({ length: COUNT }, (_, i) =>
            caller.request('batch.announce', i).then((answer) => {
              order.push(`reply ${String(answer)}`);
              return answer;
            }),
          ),
        );
        expect(answers).toEqual(Array.from({ length: COUNT }, (_, i) => i));
      } finally {
        Socket.prototype.write = write;
      }
      // Once released, only the server writes: ten events and ten replies in one write (nats.js
      // alone writes the events in a microtask, apart from the replies).
      expect(writesAfterRelease).toBe(1);
      // Each event left before its reply, so the caller, which hears both, reads it first.
      await vi.waitFor(() => expect(order.filter((o) => o.startsWith('event'))).toHaveLength(COUNT), WAIT);
      for (let i = 0; i < COUNT; i++)
        expect(order.indexOf(`event ${i}`)).toBeLessThan(order.indexOf(`reply ${i}`));
    });

    it('a durable publish the stream refuses, or whose stream is gone, fails: never a silent loss', async () => {
      const prefix = newPrefix();
      const bus = await connectBus(quiet, prefix);
      buses.push(bus);
      await bus.ensureStream(EVENTS);
      const jsm = await jetstreamManager(raw);
      const stream = `${prefix}_EVENTS`;
      const stored = async () => (await jsm.streams.info(stream)).state.messages;

      await bus.publishDurable('evt.call.ended', { n: 1 }, { msgId: 'first' });
      expect(await stored()).toBe(1);

      // Refused by the stream itself: its answer carries an error, nothing is stored.
      const config = (await jsm.streams.info(stream)).config;
      await jsm.streams.update(stream, { ...config, max_msg_size: 16 });
      const refused = await bus
        .publishDurable('evt.call.ended', { text: 'x'.repeat(64) }, { msgId: 'too-large' })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(refused).toBeInstanceOf(DurablePublishRefusedError);
      expect((refused as DurablePublishRefusedError).message).toMatch(/evt\.call\.ended/);
      expect(await stored()).toBe(1);

      // The stream deleted under the bus: nobody answers the subject (503), at once.
      await jsm.streams.delete(stream);
      const started = Date.now();
      await expect(
        bus.publishDurable('evt.call.ended', { n: 2 }, { msgId: 'second' }),
      ).rejects.toBeInstanceOf(BusNoRespondersError);
      expect(Date.now() - started).toBeLessThan(AT_ONCE_MS);
    });

    it('prefixes subjects, streams and durables, and keeps prefixes apart', async () => {
      const prefix = newPrefix();
      const otherPrefix = newPrefix();
      const bus = await connectBus(quiet, prefix);
      const other = await connectBus(quiet, otherPrefix);
      buses.push(bus, other);
      const seen: BusMessage[] = [];
      const rawSeen: string[] = [];
      bus.subscribe('iso.>', (msg) => void seen.push(msg));
      raw.subscribe('*.iso.>', { callback: (_err, msg) => void rawSeen.push(msg.subject) });
      await raw.flush();
      await other.publish('iso.x', 'from other prefix');
      await bus.publish('iso.x', 'mine');
      await vi.waitFor(
        () => expect(rawSeen.sort()).toEqual([`${otherPrefix}.iso.x`, `${prefix}.iso.x`].sort()),
        WAIT,
      );
      // Anything the server routed to this bus before now arrives before this marker.
      await bus.publish('iso.end', 'marker');
      await vi.waitFor(() => expect(seen.map((m) => m.subject)).toContain('iso.end'), WAIT);
      expect(seen.map((m) => [m.subject, m.data])).toEqual([
        ['iso.x', 'mine'],
        ['iso.end', 'marker'],
      ]);

      await bus.consume({
        stream: EVENTS,
        durable: 'calls',
        subjects: ['evt.call.>'],
        handler: async () => {},
      });
      const jsm = await jetstreamManager(raw);
      const info = await jsm.streams.info(`${prefix}_EVENTS`);
      expect(info.config).toMatchObject({
        subjects: [`${prefix}.evt.>`],
        max_age: 60_000 * 1e6,
        duplicate_window: 60_000 * 1e6,
        storage: 'file',
      });
      const consumer = await jsm.consumers.info(`${prefix}_EVENTS`, `${prefix}_calls`);
      expect(consumer.config).toMatchObject({
        ack_policy: 'explicit',
        deliver_policy: 'all',
        filter_subject: `${prefix}.evt.call.>`,
        max_ack_pending: 256,
      });
    });

    it('sends the voice-error header on failure replies', async () => {
      const prefix = newPrefix();
      const bus = await connectBus(quiet, prefix);
      buses.push(bus);
      bus.respond('svc.fail', async () => {
        throw new AppError('AGENT_NOT_FOUND');
      });
      // A round trip on the bus's own connection proves its subscription reached the server.
      await expect(bus.request('svc.fail', {})).rejects.toMatchObject({ code: 'AGENT_NOT_FOUND' });
      const h = natsHeaders();
      h.set('x-request-id', 'r-1');
      const reply = await raw.request(`${prefix}.svc.fail`, '{}', {
        timeout: REQUEST_TIMEOUT_MS,
        headers: h,
      });
      expect(reply.headers?.get('voice-error')).toBe('AGENT_NOT_FOUND');
      expect(reply.json()).toEqual({
        ok: false,
        error: { code: 'AGENT_NOT_FOUND', detail: 'Agent not found' },
      });
    });

    it('ensureStream and consume are idempotent, concurrent-safe, and apply changed settings', async () => {
      const prefix = newPrefix();
      const [a, b] = await Promise.all([connectBus(quiet, prefix), connectBus(quiet, prefix)]);
      buses.push(a!, b!);
      await Promise.all([a!.ensureStream(EVENTS), b!.ensureStream(EVENTS), a!.ensureStream(EVENTS)]);
      await b!.ensureStream({ ...EVENTS, maxAgeMs: 3_600_000 });
      const jsm = await jetstreamManager(raw);
      const info = await jsm.streams.info(`${prefix}_EVENTS`);
      expect(info.config.max_age).toBe(3_600_000 * 1e6);
      expect(info.config.duplicate_window).toBe(120_000 * 1e6);

      const options = { stream: EVENTS, durable: 'd', subjects: ['evt.>'], handler: async () => {} };
      await Promise.all([
        a!.consume({ ...options, ackWaitMs: 1_000 }),
        b!.consume({ ...options, ackWaitMs: 1_000 }),
      ]);
      await a!.consume({ ...options, ackWaitMs: 2_000, maxInFlight: 8 });
      const consumer = await jsm.consumers.info(`${prefix}_EVENTS`, `${prefix}_d`);
      expect(consumer.config).toMatchObject({ ack_wait: 2_000 * 1e6, max_ack_pending: 8 });
    });

    it('recreates a deleted consumer and keeps consuming (supervised loop)', async () => {
      const prefix = newPrefix();
      const bus = await connectBus(quiet, prefix);
      buses.push(bus);
      const got: string[] = [];
      await bus.consume({
        stream: EVENTS,
        durable: 'sup',
        subjects: ['evt.>'],
        handler: async (m) => void got.push(m.id),
      });
      await bus.publishDurable('evt.call.a', {}, { msgId: 's-1' });
      await vi.waitFor(() => expect(got).toContain('s-1'), WAIT);
      const jsm = await jetstreamManager(raw);
      await jsm.consumers.delete(`${prefix}_EVENTS`, `${prefix}_sup`);
      await bus.publishDurable('evt.call.b', {}, { msgId: 's-2' });
      await vi.waitFor(() => expect(got).toContain('s-2'), WAIT);
    });
  });
});
