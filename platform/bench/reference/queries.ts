import { AGENT_COLUMNS } from '@voice/agent-service';
import type postgres from 'postgres';

/**
 * The queries the platform's services run for the benchmarked reads, verbatim, so a reference
 * server pays for the same work in the database (the agent service's GET by id, the call service's
 * first page of GET /v1/calls). The agent service runs `agentById` on an agent's first read and
 * after each change; for an agent whose JSON it keeps it reads only the row's version
 * (AgentReplies), which a reference, keeping nothing, cannot: BENCHMARKS.md says so beside the
 * figures.
 */
export async function agentById(sql: postgres.Sql, accountId: string, id: string) {
  const [row] = await sql`
    SELECT ${sql(AGENT_COLUMNS)} FROM agent.agents WHERE id = ${id} AND account_id = ${accountId}`;
  return row;
}

export async function firstCallsPage(sql: postgres.Sql, accountId: string, pageSize = 20) {
  const rows = await sql`
    SELECT *, count(*) OVER ()::int AS total FROM call.calls WHERE account_id = ${accountId}
    ORDER BY created_at DESC, id DESC LIMIT ${pageSize} OFFSET 0`;
  return { items: rows, total: rows[0]?.total ?? 0 };
}

/** Reference (d)'s table: a call-shaped row, outside the call service's schema (its keeper never sees it). */
export async function ensureReferenceTable(sql: postgres.Sql): Promise<void> {
  await sql`CREATE SCHEMA IF NOT EXISTS bench_ref`;
  await sql`
    CREATE TABLE IF NOT EXISTS bench_ref.calls (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL,
      agent_id uuid NOT NULL,
      phone_number text NOT NULL,
      source_number text NOT NULL,
      metadata jsonb,
      status text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`;
}

export async function insertCall(
  sql: postgres.Sql,
  accountId: string,
  body: { agent_id: string; phone_number: string; source_number: string; metadata?: unknown },
) {
  const [row] = await sql`
    INSERT INTO bench_ref.calls (id, account_id, agent_id, phone_number, source_number, metadata, status)
    VALUES (gen_random_uuid(), ${accountId}, ${body.agent_id}, ${body.phone_number}, ${body.source_number},
            ${body.metadata === undefined ? null : sql.json(body.metadata as never)}, 'initializing')
    RETURNING *`;
  return row;
}
