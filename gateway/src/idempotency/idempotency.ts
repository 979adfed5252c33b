import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, type Sql } from '@voice/shared';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** What a key may be: 8 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,255}$/;
const RETENTION_HOURS = 24;
/** How long a repeat waits for the first request with its key to finish before answering 409. */
const WAIT_FOR_FIRST_MS = 15_000;
const POLL_MS = 50;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** Canonical JSON (sorted keys), so the same body written in another key order is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonical(body)}`)
    .digest('hex');
}

interface Row {
  request_hash: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_body: unknown;
}

/**
 * Runs `work` at most once per account and key. A repeat with the same request gets the first
 * response (waiting for it if the first is still running); the same key with another request is
 * a 409. A failed first attempt releases the key, so the client can retry it.
 */
export async function idempotent(
  sql: Sql,
  accountId: string,
  key: string,
  hash: string,
  work: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    await sql`DELETE FROM gateway.idempotency_keys
      WHERE account_id = ${accountId} AND key = ${key} AND created_at < now() - make_interval(hours => ${RETENTION_HOURS})`;
    const claimed = await sql`
      INSERT INTO gateway.idempotency_keys (account_id, key, request_hash, state)
      VALUES (${accountId}, ${key}, ${hash}, 'in_progress') ON CONFLICT DO NOTHING RETURNING 1`;
    if (claimed.length > 0) return { ...(await runFirst(sql, accountId, key, work)), replayed: false };
    const [row] = await sql<Row[]>`
      SELECT request_hash, state, response_status, response_body FROM gateway.idempotency_keys
      WHERE account_id = ${accountId} AND key = ${key}`;
    if (!row) continue;
    if (row.request_hash !== hash) throw new AppError('IDEMPOTENCY_KEY_REUSED');
    if (row.state === 'completed')
      return { status: row.response_status!, body: row.response_body, replayed: true };
    if (Date.now() > deadline) throw new AppError('IDEMPOTENCY_KEY_IN_PROGRESS');
    await sleep(POLL_MS);
  }
}

async function runFirst(sql: Sql, accountId: string, key: string, work: () => Promise<StoredResponse>) {
  let response: StoredResponse;
  try {
    response = await work();
  } catch (error) {
    await sql`DELETE FROM gateway.idempotency_keys WHERE account_id = ${accountId} AND key = ${key}`.catch(
      () => undefined,
    );
    throw error;
  }
  await sql`
    UPDATE gateway.idempotency_keys
    SET state = 'completed', response_status = ${response.status}, response_body = ${sql.json(response.body as never)}
    WHERE account_id = ${accountId} AND key = ${key}`;
  return response;
}
