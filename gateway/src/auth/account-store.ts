import { randomUUID } from 'node:crypto';
import {
  type Account,
  type ApiKeyInfo,
  AppError,
  type CreateAccountBody,
  type CreatedApiKey,
  cursorTime,
  type PageOf,
  type PageQuery,
  PLAN_RATE_LIMITS,
  type Plan,
  type Principal,
  pageEnd,
  pageExtent,
  pageStart,
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

/** A key the edge recognised: from memory (`fromCache`) or just read from the database. */
export type EdgeAuthResult =
  | { ok: true; principal: Principal; cacheKey: string; fromCache: boolean }
  | { ok: false; reason: 'unknown' | 'revoked' };

/** Keys kept in memory at most, the least recently confirmed dropped first. */
const KEY_CACHE_MAX = 10_000;
/** A cached key no request has confirmed for this long is read from the database again. */
const KEY_CACHE_TTL_MS = 5 * 60_000;
/**
 * While the database cannot be reached, a cached key confirmed active at most this long ago is
 * still accepted (nothing can be revoked without the database, but a revocation committed just
 * before an outage is honoured only once it ends or this grace runs out).
 */
export const KEY_UNVERIFIED_GRACE_MS = 30_000;

interface CachedKey {
  principal: Principal;
  confirmedAt: number;
}

/** Accounts and API keys: the gateway schema's repository. */
export class AccountStore {
  /**
   * What a key's hash maps to (its id, account and scopes never change), so the edge need not read
   * the key on every request. It is not what decides whether a key is still good: the edge's rate
   * limit statement checks the key is active and reads its account's limit on every request, so a
   * revocation is refused on the next request on every instance (see RateLimiter.hitKey).
   */
  private readonly keyCache = new Map<string, CachedKey>();

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

  /** Newest first, keyset-paged like every list (shared/src/db/paging.ts; migration 005 has its index). */
  async listAccounts(query: PageQuery): Promise<PageOf<Account>> {
    const start = pageStart(query, ['timestamp', 'uuid'], 'accounts');
    const { after } = start;
    const rows = await this.sql<(AccountRow & { sort_at: string })[]>`
      SELECT id, name, plan, rate_limit_per_minute, created_at, created_at::text AS sort_at FROM gateway.accounts
      ${after ? this.sql`WHERE (created_at, id) < (${cursorTime(this.sql, after[0])}, ${after[1]}::uuid)` : this.sql``}
      ORDER BY created_at DESC, id DESC LIMIT ${start.limit} OFFSET ${start.offset}`;
    const page = pageEnd(rows, start, query.page_size, (row) => [row.sort_at, row.id]);
    const extent = await pageExtent(this.sql, this.sql`gateway.accounts`, start, page);
    return toPage(page.rows.map(toAccount), extent, query);
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

  /** Newest first, keyset-paged like every list (shared/src/db/paging.ts; migration 005 has its index). */
  async listKeys(accountId: string, query: PageQuery): Promise<PageOf<ApiKeyInfo>> {
    await this.getAccount(accountId);
    const start = pageStart(query, ['timestamp', 'uuid'], 'api_keys');
    const { after } = start;
    const rows = await this.sql<(KeyRow & { sort_at: string })[]>`
      SELECT id, account_id, name, prefix, scopes, created_at, revoked_at, created_at::text AS sort_at
      FROM gateway.api_keys WHERE account_id = ${accountId}
      ${after ? this.sql`AND (created_at, id) < (${cursorTime(this.sql, after[0])}, ${after[1]}::uuid)` : this.sql``}
      ORDER BY created_at DESC, id DESC LIMIT ${start.limit} OFFSET ${start.offset}`;
    const page = pageEnd(rows, start, query.page_size, (row) => [row.sort_at, row.id]);
    const from = this.sql`gateway.api_keys WHERE account_id = ${accountId}`;
    const extent = await pageExtent(this.sql, from, start, page);
    return toPage(page.rows.map(toKeyInfo), extent, query);
  }

  /**
   * Revokes at once: every request re-checks its key in the database (with its rate limit count),
   * so the next request on any instance is refused; this instance also drops it from its cache.
   */
  async revokeKey(keyId: string): Promise<ApiKeyInfo> {
    const [row] = await this.sql<KeyRow[]>`
      UPDATE gateway.api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${keyId}
      RETURNING id, account_id, name, prefix, scopes, created_at, revoked_at`;
    if (!row) throw new AppError('API_KEY_NOT_FOUND');
    for (const [cacheKey, entry] of this.keyCache)
      if (entry.principal.keyId === keyId) this.keyCache.delete(cacheKey);
    return toKeyInfo(row);
  }

  async keyStatus(key: string): Promise<'active' | 'revoked' | 'absent'> {
    const [row] = await this.sql<{ revoked_at: Date | null }[]>`
      SELECT revoked_at FROM gateway.api_keys WHERE key_hash = ${hashApiKey(key)}`;
    if (!row) return 'absent';
    return row.revoked_at ? 'revoked' : 'active';
  }

  /**
   * The edge's lookup: a key from the cache when it is there, else from the database (then cached).
   * The caller must confirm the key is still active (RateLimiter.hitKey) before trusting it, then
   * call `confirm` or `forget`.
   */
  async authenticateForEdge(key: string): Promise<EdgeAuthResult> {
    const cacheKey = hashApiKey(key).toString('base64');
    const cached = this.keyCache.get(cacheKey);
    if (cached && Date.now() - cached.confirmedAt < KEY_CACHE_TTL_MS) {
      return { ok: true, principal: cached.principal, cacheKey, fromCache: true };
    }
    const result = await this.authenticate(key);
    if (!result.ok) {
      this.keyCache.delete(cacheKey);
      return result;
    }
    this.confirm(cacheKey, result.principal);
    return { ok: true, principal: result.principal, cacheKey, fromCache: false };
  }

  /** The key was just found active (with this principal): keep it, as the most recently confirmed. */
  confirm(cacheKey: string, principal: Principal): void {
    this.keyCache.delete(cacheKey);
    this.keyCache.set(cacheKey, { principal, confirmedAt: Date.now() });
    if (this.keyCache.size > KEY_CACHE_MAX) {
      const oldest = this.keyCache.keys().next().value;
      if (oldest !== undefined) this.keyCache.delete(oldest);
    }
  }

  /** True when the key was confirmed active at most `ms` ago. */
  confirmedWithin(cacheKey: string, ms: number): boolean {
    const cached = this.keyCache.get(cacheKey);
    return cached !== undefined && Date.now() - cached.confirmedAt <= ms;
  }

  /** The key turned out revoked or gone. */
  forget(cacheKey: string): void {
    this.keyCache.delete(cacheKey);
  }

  /** Always reads the database (WebSocket connections, which are not re-checked per request). */
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
