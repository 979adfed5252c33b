import { randomUUID } from 'node:crypto';
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { type FanoutCommand, type FanoutDone, wallNow } from './publisher';
import { median, percentile, sleep } from './support';

/** What a subscriber is told about an event: when it was published, and for which run. */
type Stamp = { sent_at: number; run: string };

export interface FanoutTarget {
  name: string;
  /** Opens one subscriber of `accountIndex`'s account; `onEvent` gets each event's stamp. */
  connect(accountIndex: number, onEvent: (stamp: Stamp) => void): Promise<{ close(): void }>;
  /** Publishes as the command says, where this target's events come from. */
  publish(command: Omit<FanoutCommand, 'type' | 'prefix'>): Promise<FanoutDone>;
  template: Record<string, unknown>;
  accounts: string[];
}

export interface FanoutRun {
  /** Events delivered per second, over the publishing time. */
  deliveredPerS: number;
  /** Share of the expected deliveries (events x subscribers of their account) that arrived. */
  deliveredShare: number;
  p50: number;
  p99: number;
  connectErrors: number;
}

export const SUBSCRIPTION = /* GraphQL */ `subscription {
  callStatusChanged { id status agentId campaignId phoneNumber durationSeconds totalCost recordingUrl metadata }
}`;

/** One graphql-ws client per subscriber, authenticated in connection_init as docs/api-guide.md says. */
export function graphqlConnector(url: string, keys: string[]) {
  return async (accountIndex: number, onEvent: (stamp: Stamp) => void) => {
    const client: Client = createClient({
      url: `${url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${keys[accountIndex]}` },
      retryAttempts: 0,
      lazy: true,
    });
    await new Promise<void>((resolve, reject) => {
      client.on('connected', () => resolve());
      client.on('closed', (event) => reject(new Error(`closed ${(event as { code?: number }).code}`)));
      client.on('error', reject);
      client.subscribe<{ callStatusChanged: { metadata: Stamp } }>(
        { query: SUBSCRIPTION },
        {
          next: (value) => {
            const stamp = value.data?.callStatusChanged.metadata;
            if (stamp) onEvent(stamp);
          },
          error: () => {},
          complete: () => {},
        },
      );
    });
    return { close: () => void client.dispose() };
  };
}

/** Reference (e)'s plain WebSocket subscriber: the raw event, as the forwarder got it. */
export function wsConnector(url: string, accounts: string[]) {
  return async (accountIndex: number, onEvent: (stamp: Stamp) => void) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/?account=${accounts[accountIndex]}`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.on('message', (data) => {
      const event = JSON.parse(data.toString()) as { data: { call: { metadata: Stamp } } };
      onEvent(event.data.call.metadata);
    });
    return { close: () => socket.terminate() };
  };
}

/**
 * One fan-out run: `clients` subscribers spread evenly over the target's accounts, `rate` events a
 * second for `durationMs`; latency is publish to receipt at the subscriber. Subscribers are primed
 * (each has received a warm-up event) before measuring, so connection set-up is not measured.
 */
export async function fanoutRun(
  target: FanoutTarget,
  options: { clients: number; rate: number; durationMs: number },
): Promise<FanoutRun> {
  const accounts = target.accounts.length;
  const primed = new Set<number>();
  const latencies: number[] = [];
  let run = '';
  const subscribers: { close(): void }[] = [];
  let connectErrors = 0;
  const prime = `prime-${randomUUID()}`;
  for (let start = 0; start < options.clients; start += 50) {
    const batch = Array.from({ length: Math.min(50, options.clients - start) }, (_, k) => start + k);
    const opened = await Promise.allSettled(
      batch.map((index) =>
        target.connect(index % accounts, (stamp) => {
          if (stamp.run === run) latencies.push(wallNow() - stamp.sent_at);
          else if (stamp.run === prime) primed.add(index);
        }),
      ),
    );
    for (const o of opened) {
      if (o.status === 'fulfilled') subscribers.push(o.value);
      else connectErrors++;
    }
  }
  try {
    const base = { accounts: target.accounts, template: target.template };
    for (let i = 0; i < 30 && primed.size < subscribers.length; i++) {
      await target.publish({ ...base, rate: accounts, durationMs: 1000, run: prime });
      await sleep(300);
    }
    await sleep(500);
    run = `run-${randomUUID()}`;
    const done = await target.publish({ ...base, rate: options.rate, durationMs: options.durationMs, run });
    // Stragglers: wait until nothing more arrives for a second (at most 10 s).
    for (let i = 0, seen = -1; i < 10 && seen !== latencies.length; i++) {
      seen = latencies.length;
      await sleep(1000);
    }
    const expected = done.published * (subscribers.length / accounts);
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      deliveredPerS: latencies.length / (done.elapsedMs / 1000),
      deliveredShare: expected ? latencies.length / expected : 0,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      connectErrors,
    };
  } finally {
    for (const s of subscribers) s.close();
    await sleep(1000);
  }
}

export function fanoutSummary(runs: FanoutRun[]) {
  return {
    deliveredPerS: median(runs.map((r) => r.deliveredPerS)),
    deliveredShare: median(runs.map((r) => r.deliveredShare)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    connectErrors: runs.reduce((s, r) => s + r.connectErrors, 0),
  };
}
