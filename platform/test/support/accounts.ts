import { expect } from 'vitest';
import type { TestPlatform } from './harness';
import { api, type Envelope } from './http';

export interface TestAccount {
  accountId: string;
  key: string;
}

/** Where the admin API is: a test platform, or a gateway process started with ADMIN_TOKEN. */
export type AdminApi = Pick<TestPlatform, 'url' | 'adminToken'>;

/** A fresh account with one key (full access unless scopes are given), through the admin API. */
export async function createAccount(
  t: AdminApi,
  options: {
    plan?: string;
    scopes?: string[];
    name?: string;
    rateLimitPerMinute?: number;
    /** Calls dialed at once (default: the plan's). */
    maxConcurrentCalls?: number;
  } = {},
): Promise<TestAccount & { keyId: string }> {
  const account = await api<Envelope<{ id: string }>>(t.url, 'POST', '/admin/accounts', {
    key: t.adminToken,
    body: {
      name: options.name ?? 'Test account',
      plan: options.plan ?? 'pro',
      ...(options.rateLimitPerMinute ? { rate_limit_per_minute: options.rateLimitPerMinute } : {}),
      ...(options.maxConcurrentCalls ? { max_concurrent_calls: options.maxConcurrentCalls } : {}),
    },
  });
  expect(account.status).toBe(201);
  const created = await createKeyRecord(t, account.body.data.id, options.scopes);
  return { accountId: account.body.data.id, key: created.key, keyId: created.id };
}

export async function createKey(t: AdminApi, accountId: string, scopes?: string[]): Promise<string> {
  return (await createKeyRecord(t, accountId, scopes)).key;
}

async function createKeyRecord(
  t: AdminApi,
  accountId: string,
  scopes?: string[],
): Promise<{ key: string; id: string }> {
  const key = await api<Envelope<{ key: string; id: string }>>(
    t.url,
    'POST',
    `/admin/accounts/${accountId}/api-keys`,
    { key: t.adminToken, body: scopes ? { scopes } : {} },
  );
  expect(key.status).toBe(201);
  return key.body.data;
}
