import { setTimeout as delay } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { type Call, type Campaign, type CampaignContact, CONTACT_STATES, type PageOf } from '@voice/shared';
import type { InfraMode } from '@voice/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, expect } from 'vitest';
import { type AdminApi, createKey, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';

/** Helpers of the campaign tests: polling the API is their main activity, so accounts get a large budget. */

export const FROM = '+14155550100';

export type Res<T> = Awaited<ReturnType<typeof api<Envelope<T> & ErrorEnvelope>>>;

/** An enterprise account with a large rate limit (the tests poll), and one key. */
export async function pollingAccount(t: AdminApi, name: string, scopes?: string[]): Promise<TestAccount> {
  const account = await api<Envelope<{ id: string }>>(t.url, 'POST', '/admin/accounts', {
    key: t.adminToken,
    body: { name, plan: 'enterprise', rate_limit_per_minute: 1_000_000 },
  });
  expect(account.status, account.text).toBe(201);
  return { accountId: account.body.data.id, key: await createKey(t, account.body.data.id, scopes) };
}

export async function createAgent(url: string, key: string, name = 'Riley'): Promise<string> {
  const agent = await api<Envelope<{ id: string }>>(url, 'POST', '/v1/agents', {
    key,
    body: { name, start_flow: `Hi, this is ${name} from Acme.`, end_flow: 'Thanks for your time, goodbye!' },
  });
  expect(agent.status, agent.text).toBe(201);
  return agent.body.data.id;
}

/** A client of one gateway for one key. */
export function campaignApi(url: string, key: string) {
  const send = <T = Campaign>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    asKey = key,
  ): Promise<Res<T>> =>
    api<Envelope<T> & ErrorEnvelope>(url, method, path, {
      key: asKey,
      ...(body === undefined ? {} : { body }),
      ...(headers ? { headers } : {}),
    });

  async function all<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    for (let page = 1; ; page++) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await send<PageOf<T>>('GET', `${path}${sep}page=${page}&page_size=100`);
      expect(res.status, res.text).toBe(200);
      items.push(...res.body.data.items);
      if (!res.body.data.has_more) return items;
    }
  }

  return {
    send,
    async create(body: Record<string, unknown>, headers?: Record<string, string>): Promise<Campaign> {
      const res = await send('POST', '/v1/campaigns', body, headers);
      expect(res.status, res.text).toBe(201);
      return res.body.data;
    },
    async get(id: string): Promise<Campaign> {
      const res = await send('GET', `/v1/campaigns/${id}`);
      expect(res.status, res.text).toBe(200);
      return res.body.data;
    },
    /**
     * Polls the campaign until `done` holds (it returns as soon as it does: the bound is for a loaded
     * machine). `waitOut`: statuses a recovering platform may answer for a moment (503, 504), polled
     * past like a client retrying them; any other answer but 200 fails at once.
     */
    async waitFor(
      id: string,
      done: (c: Campaign) => boolean,
      timeoutMs = 60_000,
      waitOut: readonly number[] = [],
    ): Promise<Campaign> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const res = await send<Campaign>('GET', `/v1/campaigns/${id}`);
        if (!waitOut.includes(res.status)) {
          expect(res.status, res.text).toBe(200);
          if (done(res.body.data)) return res.body.data;
        }
        if (Date.now() > deadline)
          throw new Error(`campaign ${id} never got there; last answer: ${res.status} ${res.text}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    },
    calls: (campaignId: string) => all<Call>(`/v1/calls?campaign_id=${campaignId}`),
    contacts: (campaignId: string, status?: string) =>
      all<CampaignContact>(`/v1/campaigns/${campaignId}/contacts${status ? `?status=${status}` : ''}`),
  };
}

/**
 * The most calls that were not final at one moment. A call's start and end are wall-clock times
 * (timestamps are wall-clock, never in the future, whatever SIM_TIME_SCALE is): its end is the moment the
 * carrier ended it. The campaign frees the slot only later (once CALL_ENDED reached it), so any
 * call it placed early overlaps here.
 */
export function maxOverlap(calls: readonly Call[]): number {
  const edges: [number, number][] = [];
  for (const call of calls) {
    expect(call.ended_at, `call ${call.id} ended`).toBeTruthy();
    const start = Date.parse(call.started_at!);
    const end = Date.parse(call.ended_at!);
    edges.push([start, 1], [end, -1]);
  }
  // An end and a start at the same instant: the end first (the slot was free).
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let live = 0;
  let max = 0;
  for (const [, step] of edges) {
    live += step;
    max = Math.max(max, live);
  }
  return max;
}

/** Every number dialed, with how many calls it got. */
export function dialsPerNumber(calls: readonly Call[]): Map<string, number> {
  const dials = new Map<string, number>();
  for (const call of calls) dials.set(call.phone_number, (dials.get(call.phone_number) ?? 0) + 1);
  return dials;
}

/** `n` distinct numbers that the simulated carrier completes (none ends in 0001..0004). */
export function completingNumbers(n: number, prefix = '+1415555'): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}${String(2000 + i).padStart(4, '0')}`);
}

export interface CampaignSuite {
  t: TestPlatform;
  acme: TestAccount;
  other: TestAccount;
  agentId: string;
  /** acme's client. */
  api: ReturnType<typeof campaignApi>;
  /** The platform's database, for what the API cannot show (a replica's leftovers). */
  sql: postgres.Sql;
  /** A create body for acme's agent. */
  settings(extra?: Record<string, unknown>): Record<string, unknown>;
  contactsOf(numbers: string[]): { phone: string; name: string }[];
}

/**
 * One platform for a test file in one mode, two accounts and an agent, set up in beforeAll and
 * stopped in afterAll (register it before the file's own hooks; its fields are set from then on).
 */
export function campaignSuite(mode: InfraMode, timeScale: number): CampaignSuite {
  const suite: Pick<CampaignSuite, 'settings' | 'contactsOf'> & Partial<CampaignSuite> = {
    settings: (extra: Record<string, unknown> = {}) => ({
      name: 'Spring outreach',
      agent_id: suite.agentId,
      phone_number: FROM,
      ...extra,
    }),
    contactsOf: (numbers: string[]) => numbers.map((phone, i) => ({ phone, name: `Contact ${i}` })),
  };
  beforeAll(async () => {
    const t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE: timeScale } });
    suite.t = t;
    const acme = await pollingAccount(t, 'Acme');
    suite.acme = acme;
    suite.other = await pollingAccount(t, 'Other');
    suite.agentId = await createAgent(t.url, acme.key);
    suite.api = campaignApi(t.url, acme.key);
    suite.sql = postgres(t.databaseUrl, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await suite.sql?.end({ timeout: 5 });
    await suite.t?.stop();
  });
  // Complete once the beforeAll above ran, which is before any test or later hook reads it.
  return suite as CampaignSuite;
}

type Counts = Record<string, number>;

/**
 * The campaign's stored counts and a recount of its contacts (GROUP BY state), read in one
 * snapshot: the service changes both in one transaction, so at every moment they must agree.
 */
export async function countsSnapshot(
  sql: postgres.Sql,
  campaignId: string,
): Promise<{ stored: Counts; recounted: Counts }> {
  const zero = (): Counts => Object.fromEntries([['total', 0], ...CONTACT_STATES.map((s) => [s, 0])]);
  return sql.begin('isolation level repeatable read read only', async (tx) => {
    const [row] = await tx<{ counts: Counts }[]>`
      SELECT counts FROM campaign.campaigns WHERE id = ${campaignId}`;
    const states = await tx<{ state: string; n: number }[]>`
      SELECT state, count(*)::int AS n FROM campaign.contacts WHERE campaign_id = ${campaignId}
      GROUP BY state`;
    const recounted = zero();
    for (const { state, n } of states) {
      recounted[state] = n;
      recounted.total! += n;
    }
    return { stored: { ...zero(), ...row?.counts }, recounted };
  });
}

/**
 * Compares stored counts with a recount (countsSnapshot) over and over until stopped: every
 * disagreement, how many snapshots were taken and how many caught calls in flight (so a run
 * was watched while it moved, not only before or after).
 */
export function watchCounts(sql: postgres.Sql, campaignId: string) {
  let stopped = false;
  const seen = { taken: 0, inFlight: 0, mismatches: [] as { stored: Counts; recounted: Counts }[] };
  const watching = (async () => {
    while (!stopped) {
      const snapshot = await countsSnapshot(sql, campaignId);
      seen.taken++;
      if ((snapshot.recounted.in_progress ?? 0) > 0) seen.inFlight++;
      if (!isDeepStrictEqual(snapshot.stored, snapshot.recounted)) seen.mismatches.push(snapshot);
      await delay(10);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await watching;
      return seen;
    },
  };
}
