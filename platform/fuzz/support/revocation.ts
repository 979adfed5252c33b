import { createVoiceClient } from '../../../client/src/index';
import { deferred, keySocket } from '../../test/api/graphql-ws-support';

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
  const { client, codes, ready } = keySocket(url, key);
  const started = deferred();
  const held: HeldConnections = {
    closeCodes: codes,
    subscriptionEnd: undefined,
    streamEnd: undefined,
    dispose: async () => {},
  };
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
      onStarted: () => started.settle(),
      onError: (error) => {
        held.streamEnd = error;
        started.settle();
      },
      onComplete: () => {
        held.streamEnd = 'completed';
      },
    },
  );
  held.dispose = async () => {
    stream.unsubscribe();
    await client.dispose();
  };
  // Open (or already refused, which the suite's check then reports).
  await Promise.all([ready, started.promise]);
  return held;
}
