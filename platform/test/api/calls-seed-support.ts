import postgres from 'postgres';

const LINE = 'We talked about the listing on Elm Street and booked a viewing for Saturday morning. ';

/**
 * Fills the call schema directly with `count` finished calls of the account (one in ten no_answer,
 * the rest completed, a second apart, each with a 30-line transcript and a formula-like summary):
 * thousands of calls for an export are test data, not something to dial.
 */
export async function seedCalls(databaseUrl: string, accountId: string, count: number): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const snapshot = { id: '11111111-1111-4111-8111-111111111111', name: 'Seeded', agent_type: 'sales' };
    const transcript = Array.from({ length: 30 }, (_, i) => ({
      role: i % 2 === 0 ? 'agent' : 'user',
      content: LINE,
      timestamp: '12:00:00',
    }));
    const details = { status: 'complete', score: 1, collected_details: ['x'], collected_values: { x: 1 } };
    await sql`
      INSERT INTO call.calls (id, account_id, agent_id, agent_snapshot, phone_number, source_number, metadata, status,
        created_at, started_at, answered_at, ended_at, duration_seconds, transcript, sentiment, call_summary,
        call_end_reason, ended_by, details_collection, ai_cost, telephony_cost, total_cost, prompt_hash)
      SELECT gen_random_uuid(), ${accountId}, ${snapshot.id}, ${sql.json(snapshot)}, '+1415555' || lpad(n::text, 4, '0'),
        '+14155550100', ${sql.json({ row: 'seed' })}, CASE WHEN n % 10 = 0 THEN 'no_answer' ELSE 'completed' END,
        date_trunc('milliseconds', now()) - make_interval(secs => n), now(), now(), now(), 60, ${sql.json(transcript)},
        'positive', ${'=SUM(A1) summary, with "quotes"'}, 'conversation_completed', 'agent', ${sql.json(details)},
        0.06, 0.014, 0.074, 'sha256:seed'
      FROM generate_series(1, ${count}) AS n`;
  } finally {
    await sql.end();
  }
}
