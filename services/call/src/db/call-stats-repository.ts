import { type AgentCallStats, CALL_STATS_SAMPLE, type Sql } from '@voice/shared';

/**
 * How long the agent's latest ended calls lasted, from dial (or placement, for a call never
 * dialed) to end: the time each held a campaign slot. The latest CALL_STATS_SAMPLE by
 * calls_account_agent_idx, so the cost does not grow with the history.
 */
export async function agentCallStats(sql: Sql, accountId: string, agentId: string): Promise<AgentCallStats> {
  const [row] = await sql<{ calls: number; mean_seconds: number | null }[]>`
    SELECT count(*)::int AS calls,
      avg(extract(epoch FROM ended_at - COALESCE(dialed_at, started_at)))::float8 AS mean_seconds
    FROM (
      SELECT ended_at, dialed_at, started_at FROM call.calls
      WHERE account_id = ${accountId} AND agent_id = ${agentId} AND ended_at IS NOT NULL
      ORDER BY created_at DESC, id DESC LIMIT ${CALL_STATS_SAMPLE}
    ) latest`;
  return { calls: row?.calls ?? 0, mean_seconds: row?.mean_seconds ?? null };
}
