import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BusNoRespondersError, InProcessBus, type StreamDefinition } from '../src/bus';

type LogLine = Record<string, unknown> & { msg: string };
// Deliveries take milliseconds, but a loaded machine may stall a worker for seconds.
const WAIT = { timeout: 15_000, interval: 5 };

/** What only the in-process bus has: its memory-only stream limits and its close semantics. */
describe('InProcessBus durable streams', () => {
  const buses: InProcessBus[] = [];
  let lines: LogLine[] = [];
  function newBus(retainedPerStream?: number): InProcessBus {
    lines = [];
    const log = pino(
      { level: 'debug' },
      { write: (line: string) => lines.push(JSON.parse(line) as LogLine) },
    );
    const bus = new InProcessBus({
      requestTimeoutMs: 2_000,
      log,
      ...(retainedPerStream === undefined ? {} : { retainedPerStream }),
    });
    buses.push(bus);
    return bus;
  }
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });

  it('keeps at most retainedPerStream events, dropping the oldest with a warning', async () => {
    const bus = newBus(3);
    const stream: StreamDefinition = { name: 'CAPPED', subjects: ['cap.>'], maxAgeMs: 60_000 };
    await bus.ensureStream(stream);
    for (const n of [1, 2, 3, 4, 5]) await bus.publishDurable('cap.x', { n }, { msgId: `c-${n}` });
    expect(lines).toContainEqual(expect.objectContaining({ level: 40, stream: 'CAPPED', dropped: 1 }));
    const got: string[] = [];
    await bus.consume({
      stream,
      durable: 'late',
      subjects: ['cap.>'],
      handler: async (m) => void got.push(m.id),
    });
    await vi.waitFor(() => expect(got).toEqual(['c-3', 'c-4', 'c-5']), WAIT);
  });

  it("drops events past the stream's max age, as JetStream does", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const bus = newBus();
    const stream: StreamDefinition = { name: 'AGED', subjects: ['aged.>'], maxAgeMs: 1_000 };
    await bus.ensureStream(stream);
    await bus.publishDurable('aged.x', {}, { msgId: 'old' });
    vi.setSystemTime(Date.now() + 1_500);
    await bus.publishDurable('aged.x', {}, { msgId: 'new' });
    const got: string[] = [];
    await bus.consume({
      stream,
      durable: 'late',
      subjects: ['aged.>'],
      handler: async (m) => void got.push(m.id),
    });
    await vi.waitFor(() => expect(got).toEqual(['new']), WAIT);
  });

  it('registers a consumer before consume() returns, so a publish right after waits for its ack', async () => {
    const bus = newBus();
    const stream: StreamDefinition = { name: 'SYNC', subjects: ['sync.>'], maxAgeMs: 60_000 };
    const acked: string[] = [];
    void bus.consume({
      stream,
      durable: 'd',
      subjects: ['sync.>'],
      handler: async (m) => {
        await new Promise((r) => setTimeout(r, 50));
        acked.push(m.id);
      },
    });
    await bus.publishDurable('sync.x', {}, { msgId: 's-1' });
    expect(acked).toEqual(['s-1']);
  });

  it('close() fails durable publishes still waiting for an ack that can no longer come', async () => {
    const bus = newBus();
    const stream: StreamDefinition = { name: 'STUCK', subjects: ['stuck.>'], maxAgeMs: 60_000 };
    await bus.consume({
      stream,
      durable: 'flaky',
      subjects: ['stuck.>'],
      retryDelayMs: () => 60_000,
      handler: async () => {
        throw new Error('not now');
      },
    });
    const published = bus.publishDurable('stuck.x', {}, { msgId: 'x-1' });
    await vi.waitFor(
      () => expect(lines.map((l) => l.msg)).toContain('durable handler failed; redelivering'),
      WAIT,
    );
    await bus.close();
    await expect(published).rejects.toBeInstanceOf(BusNoRespondersError);
    expect(bus.status()).toBe('closed');
  });
});
