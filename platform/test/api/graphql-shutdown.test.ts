import { createClient } from 'graphql-ws';
import { expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createAccount } from '../support/accounts';
import { startTestPlatform } from '../support/harness';

it('ends open graphql-ws subscriptions with 1001 when the gateway stops, without holding the stop', async () => {
  const t = await startTestPlatform('embedded');
  const acme = await createAccount(t);
  const client = createClient({
    url: `${t.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${acme.key}` },
    retryAttempts: 0,
    onNonLazyError: () => {},
  });
  const closed = new Promise<number>((resolve) =>
    client.on('closed', (e) => resolve((e as { code: number }).code)),
  );
  client.subscribe(
    { query: 'subscription { callStatusChanged { id } }' },
    { next: () => {}, error: () => {}, complete: () => {} },
  );
  const live = t.platform.gateway!.deps.live;
  await vi.waitFor(() => expect(live.listenerCount).toBe(1), { timeout: 30_000, interval: 20 });

  await t.stop();
  expect(await closed).toBe(1001);
  expect(live.listenerCount).toBe(0);
  await client.dispose();
});
