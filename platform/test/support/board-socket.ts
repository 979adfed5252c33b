import type { BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import type { BoardEvent } from './board-calls';

/** The page's graphql-ws socket, answered by us: events pushed on its subscription. */
export interface BoardSocket {
  /** Resolves once the page has subscribed (the board is listening). */
  subscribed: Promise<void>;
  /** Sends one `callStatusChanged` result on the page's subscription. */
  push(event: BoardEvent): void;
}

/**
 * Answers the page's `/graphql` WebSocket in place of the gateway (Playwright's routeWebSocket),
 * speaking enough graphql-ws for the app's real subscription client: ack, pong, and results pushed
 * on its subscription. Queries still go to the platform over HTTP. Call before the page loads.
 */
export async function answerBoardSocket(page: Page): Promise<BoardSocket> {
  let socket: WebSocketRoute | undefined;
  let subscriptionId: string | undefined;
  let ready!: () => void;
  const subscribed = new Promise<void>((resolve) => {
    ready = resolve;
  });
  await page.routeWebSocket(/\/graphql$/, (ws) => {
    socket = ws;
    ws.onMessage((raw) => {
      const message = JSON.parse(String(raw)) as { type: string; id?: string };
      if (message.type === 'connection_init') ws.send(JSON.stringify({ type: 'connection_ack' }));
      else if (message.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
      else if (message.type === 'subscribe') {
        subscriptionId = message.id;
        ready();
      }
    });
  });
  return {
    subscribed,
    push(event) {
      if (!socket || !subscriptionId) throw new Error('the page has not subscribed');
      socket.send(
        JSON.stringify({
          id: subscriptionId,
          type: 'next',
          payload: { data: { callStatusChanged: event } },
        }),
      );
    },
  };
}

/** The page's JavaScript heap in use after a forced full garbage collection, bytes (Chromium's CDP). */
export async function heapAfterGc(context: BrowserContext, page: Page): Promise<number> {
  const cdp = await context.newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    return (await cdp.send('Runtime.getHeapUsage')).usedSize;
  } finally {
    await cdp.detach();
  }
}
