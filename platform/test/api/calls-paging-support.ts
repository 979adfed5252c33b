import postgres from 'postgres';

/**
 * Fills the call schema directly with `count` small finished calls of the account (no transcript),
 * cheaply enough for tens of thousands: a list's history is test data, not something to dial.
 * `sharing` calls share each creation time (ties the list orders by id), an hour back and
 * `stepMicroseconds` apart per group (a second unless told: a step of 1 puts many groups in one
 * millisecond, which a cursor key rounded to milliseconds would skip); statuses cycle completed, no_answer, busy, failed.
 */
export async function seedHistory(
  databaseUrl: string,
  accountId: string,
  count: number,
  options: { sharing?: number; agentId?: string; stepMicroseconds?: number } = {},
): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const agentId = options.agentId ?? '22222222-2222-4222-8222-222222222222';
  try {
    await sql`
      INSERT INTO call.calls (id, account_id, agent_id, agent_snapshot, phone_number, source_number, status,
        created_at, started_at, ended_at, prompt_hash)
      SELECT gen_random_uuid(), ${accountId}, ${agentId}, ${sql.json({ name: 'Seeded', agent_type: 'sales' })},
        '+1415555' || lpad((n % 10000)::text, 4, '0'), '+14155550100',
        (ARRAY['completed', 'no_answer', 'busy', 'failed'])[1 + n % 4],
        date_trunc('milliseconds', now()) - interval '1 hour' - make_interval(secs => (n / ${options.sharing ?? 1}) * ${options.stepMicroseconds ?? 1_000_000}::bigint / 1e6),
        now(), now(), 'sha256:seed'
      FROM generate_series(1, ${count}) AS n`;
    // As autovacuum would soon: the planner's estimate of a long list's total reads these statistics.
    await sql`ANALYZE call.calls`;
  } finally {
    await sql.end();
  }
}

/** The ids of every call the account has now, read from its table. */
export async function callIds(databaseUrl: string, accountId: string): Promise<Set<string>> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ id: string }[]>`SELECT id FROM call.calls WHERE account_id = ${accountId}`;
    return new Set(rows.map((row) => row.id));
  } finally {
    await sql.end();
  }
}

/** A cursor as the API encodes it (base64url JSON), to edit one as a client might. */
export const cursorParts = (cursor: string): unknown[] =>
  JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
export const cursorOf = (parts: unknown[]): string =>
  Buffer.from(JSON.stringify(parts)).toString('base64url');
