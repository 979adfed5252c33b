import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createVoiceClient } from '../../../client/src/index';

/** A key's long-lived connections, held open while the fuzz runs. */
export interface HeldConnections {
  /** Close codes of the graphql-ws socket, in order. */
  closeCodes: number[];
  /** How the subscription on the socket ended (its sink's error), once it has. */
  subscriptionEnd: unknown;
  /** How the tRPC SSE stream ended, once it has. */
  streamEnd: unknown;
  dispose(): Promise<void>;
}

/**
 * A graphql-ws socket with a subscription and a tRPC SSE stream of `key` (the key the fuzz may
 * revoke through the admin API), opened before the fuzz: once the key is revoked, by the fuzz or
 * afterwards, both must end (4403, UNAUTHORIZED) whatever the fuzz did to the gateway meanwhile.
 */
export async function holdConnections(url: string, key: string): Promise<HeldConnections> {
  let connected!: () => void;
  let started!: () => void;
  const ready = [
    new Promise<void>((resolve) => {
      connected = resolve;
    }),
    new Promise<void>((resolve) => {
      started = resolve;
    }),
  ];
  const held: HeldConnections = {
    closeCodes: [],
    subscriptionEnd: undefined,
    streamEnd: undefined,
    dispose: async () => {},
  };
  const client: Client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    on: {
      connected: () => connected(),
      closed: (event) => {
        held.closeCodes.push((event as { code: number }).code);
        connected();
      },
    },
  });
  client.subscribe(
    { query: 'subscription { callStatusChanged { id status } }' },
    {
      next: () => {},
      error: (error) => {
        held.subscriptionEnd = error;
      },
      complete: () => {
        held.subscriptionEnd = 'completed';
      },
    },
  );
  const stream = createVoiceClient({ url, apiKey: key }).calls.onStatus.subscribe(
    {},
    {
      onStarted: () => started(),
      onError: (error) => {
        held.streamEnd = error;
        started();
      },
      onComplete: () => {
        held.streamEnd = 'completed';
      },
    },
  );
  // Open (or already refused, which the suite's check then reports).
  held.dispose = async () => {
    stream.unsubscribe();
    await client.dispose();
  };
  await Promise.all(ready);
  return held;
}
