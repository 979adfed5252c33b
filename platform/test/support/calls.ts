import type { Call, MakeCallBody } from '@voice/shared';
import { expect } from 'vitest';
import { api, type Envelope } from './http';

/** Polls GET /v1/calls/{id} until `done` holds for the call; `seen` is shown every answer. */
export async function callWhen(
  baseUrl: string,
  key: string,
  id: string,
  done: (call: Call) => boolean,
  timeoutMs = 60_000,
  seen?: (call: Call) => void,
): Promise<Call> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await api<Envelope<Call>>(baseUrl, 'GET', `/v1/calls/${id}`, { key });
    expect(got.status, got.text).toBe(200);
    seen?.(got.body.data);
    if (done(got.body.data)) return got.body.data;
    if (Date.now() > deadline)
      throw new Error(`call ${id} never got there: ${JSON.stringify(got.body.data)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

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
  let live = false;
  return callWhen(
    baseUrl,
    key,
    res.body.data.id,
    (call) => call.ended_at !== null,
    timeoutMs,
    (call) => {
      if (live || call.status !== 'in_progress') return;
      live = true;
      whenLive?.();
    },
  );
}

/** Places one call to each of `numbers` in turn through POST /v1/call; their ids, in order. */
export async function placeCalls(
  baseUrl: string,
  key: string,
  call: { agentId: string; from: string; numbers: string[] },
): Promise<string[]> {
  const ids: string[] = [];
  for (const number of call.numbers) {
    const res = await api<Envelope<Call>>(baseUrl, 'POST', '/v1/call', {
      key,
      body: { agent_id: call.agentId, source_number: call.from, phone_number: number },
    });
    expect(res.status, res.text).toBe(201);
    ids.push(res.body.data.id);
  }
  return ids;
}
