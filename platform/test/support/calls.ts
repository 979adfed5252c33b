import type { Call, MakeCallBody } from '@voice/shared';
import { expect } from 'vitest';
import { api, type Envelope } from './http';

/**
 * Places a call through POST /v1/call and polls GET /v1/calls/{id} until it has ended; `whenLive`
 * runs once, as soon as the call is seen in progress (answered).
 */
export async function placeCallAndWait(
  baseUrl: string,
  key: string,
  body: MakeCallBody,
  timeoutMs = 60_000,
  whenLive?: () => void,
): Promise<Call> {
  const res = await api<Envelope<Call>>(baseUrl, 'POST', '/v1/call', { key, body });
  expect(res.status, res.text).toBe(201);
  const deadline = Date.now() + timeoutMs;
  let live = false;
  for (;;) {
    const got = await api<Envelope<Call>>(baseUrl, 'GET', `/v1/calls/${res.body.data.id}`, { key });
    if (!live && got.body.data.status === 'in_progress') {
      live = true;
      whenLive?.();
    }
    if (got.body.data.ended_at) return got.body.data;
    if (Date.now() > deadline)
      throw new Error(`call ${res.body.data.id} did not end: ${got.body.data.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
