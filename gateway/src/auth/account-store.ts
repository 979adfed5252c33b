import { randomUUID } from 'node:crypto';
import {
  type Account,
  type ApiKeyInfo,
  AppError,
  type CreateAccountBody,
  type CreatedApiKey,
  type PageOf,
  type PageQuery,
  PLAN_RATE_LIMITS,
  type Plan,
  type Principal,
  pageTotal,
  SCOPES,
  type Scope,
  type Sql,
  toPage,
} from '@voice/shared';
import { displayPrefix, generateApiKey, hashApiKey, sameDigest } from './keys';

interface AccountRow {
  id: string;
  name: string;
  plan: Plan;
  rate_limit_per_minute: number | null;
  created_at: Date;
}

interface KeyRow {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  scopes: Scope[];
  created_at: Date;
  revoked_at: Date | null;
}

interface KeyLookupRow extends KeyRow {
  key_hash: Buffer;
  plan: Plan;
  rate_limit_per_minute: number | null;
}

export function effectiveRateLimit(plan: Plan, override: number | null): number {
  if (override !== null) return override;
  // Enterprise accounts are created with their own number; this is only a guard for bad rows.
  return plan === 'enterprise' ? PLAN_RATE_LIMITS.pro : PLAN_RATE_LIMITS[plan];
}

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    rate_limit_per_minute: effectiveRateLimit(row.plan, row.rate_limit_per_minute),
    created_at: row.created_at.toISOString(),
  };
}

function toKeyInfo(row: KeyRow): ApiKeyInfo {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: 'unknown' | 'revoked' };

/** Accounts and API keys: the gateway schema's repository. */
export class AccountStore {
  constructor(private readonly sql: Sql) {}

  async createAccount(input: CreateAccountBody & { isDevelopment?: boolean }): Promise<Account> {
    const [row] = await this.sql<AccountRow[]>`
      INSERT INTO gateway.accounts (id, name, plan, rate_limit_per_minute, is_development)
      VALUES (${randomUUID()}, ${input.name}, ${input.plan}, ${input.rate_limit_per_minute ?? null}, ${input.isDevelopment ?? false})
      RETURNING id, name, plan, rate_limit_per_minute, created_at`;
    return toAccount(row!);
  }

  async getAccount(id: string): Promise<Account> {
    const [row] = await this.sql<AccountRow[]>`
      SELECT id, name, plan, rate_limit_per_minute, created_at FROM gateway.accounts WHERE id = ${id}`;
    if (!row) throw new AppError('ACCOUNT_NOT_FOUND');
    return toAccount(row);
  }

  async findDevelopmentAccount(): Promise<Account | undefined> {
    const [row] = await this.sql<AccountRow[]>`
      SELECT id, name, plan, rate_limit_per_minute, created_at FROM gateway.accounts
      WHERE is_development ORDER BY created_at LIMIT 1`;
    return row ? toAccount(row) : undefined;
  }

  async listAccounts(page: PageQuery): Promise<PageOf<Account>> {
    const rows = await this.sql<(AccountRow & { total: number })[]>`
      SELECT id, name, plan, rate_limit_per_minute, created_at, count(*) OVER ()::int AS total
      FROM gateway.accounts ORDER BY created_at DESC, id
      LIMIT ${page.page_size} OFFSET ${(page.page - 1) * page.page_size}`;
    const total = await pageTotal(
      rows,
      () => this.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM gateway.accounts`,
    );
    return toPage(rows.map(toAccount), total, page);
  }

  /** Creates a key; `key` is given only for the development key the operator chose. */
  async createKey(
    accountId: string,
    input: { name?: string | undefined; scopes?: Scope[] | undefined; key?: string },
  ): Promise<CreatedApiKey> {
    await this.getAccount(accountId);
    const key = input.key ?? generateApiKey();
    const scopes = input.scopes ? [...new Set(input.scopes)] : [...SCOPES];
    const [row] = await this.sql<KeyRow[]>`
      INSERT INTO gateway.api_keys (id, account_id, name, prefix, key_hash, scopes)
      VALUES (${randomUUID()}, ${accountId}, ${input.name ?? null}, ${displayPrefix(key)}, ${hashApiKey(key)}, ${scopes})
      RETURNING id, account_id, name, prefix, scopes, created_at, revoked_at`;
    const info = toKeyInfo(row!);
    return {
      id: info.id,
      key,
      scopes: info.scopes,
      account_id: info.account_id,
      name: info.name,
      created_at: info.created_at,
    };
  }

  async listKeys(accountId: string, page: PageQuery): Promise<PageOf<ApiKeyInfo>> {
    await this.getAccount(accountId);
    const rows = await this.sql<(KeyRow & { total: number })[]>`
      SELECT id, account_id, name, prefix, scopes, created_at, revoked_at, count(*) OVER ()::int AS total
      FROM gateway.api_keys WHERE account_id = ${accountId}
      ORDER BY created_at DESC, id LIMIT ${page.page_size} OFFSET ${(page.page - 1) * page.page_size}`;
    const total = await pageTotal(
      rows,
      () =>
        this.sql<
          { n: number }[]
        >`SELECT count(*)::int AS n FROM gateway.api_keys WHERE account_id = ${accountId}`,
    );
    return toPage(rows.map(toKeyInfo), total, page);
  }

  /** Revokes at once: no instance caches keys, so the next request anywhere is refused. */
  async revokeKey(keyId: string): Promise<ApiKeyInfo> {
    const [row] = await this.sql<KeyRow[]>`
      UPDATE gateway.api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${keyId}
      RETURNING id, account_id, name, prefix, scopes, created_at, revoked_at`;
    if (!row) throw new AppError('API_KEY_NOT_FOUND');
    return toKeyInfo(row);
  }

  async keyStatus(key: string): Promise<'active' | 'revoked' | 'absent'> {
    const [row] = await this.sql<{ revoked_at: Date | null }[]>`
      SELECT revoked_at FROM gateway.api_keys WHERE key_hash = ${hashApiKey(key)}`;
    if (!row) return 'absent';
    return row.revoked_at ? 'revoked' : 'active';
  }

  async authenticate(key: string): Promise<AuthResult> {
    const digest = hashApiKey(key);
    const [row] = await this.sql<KeyLookupRow[]>`
      SELECT k.id, k.account_id, k.name, k.prefix, k.scopes, k.created_at, k.revoked_at, k.key_hash,
             a.plan, a.rate_limit_per_minute
      FROM gateway.api_keys k JOIN gateway.accounts a ON a.id = k.account_id
      WHERE k.key_hash = ${digest}`;
    if (!row || !sameDigest(row.key_hash, digest)) return { ok: false, reason: 'unknown' };
    if (row.revoked_at) return { ok: false, reason: 'revoked' };
    return {
      ok: true,
      principal: {
        accountId: row.account_id,
        keyId: row.id,
        scopes: row.scopes,
        plan: row.plan,
        rateLimitPerMinute: effectiveRateLimit(row.plan, row.rate_limit_per_minute),
      },
    };
  }
}
