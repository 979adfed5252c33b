/**
 * Reference (b): bare Fastify + postgres.js running the platform's own queries in-process (no bus,
 * no auth, no rate limit). DATABASE_URL, ACCOUNT_ID; prints `listening <url>`.
 */
import Fastify from 'fastify';
import postgres from 'postgres';
import { listenUntilTerm } from './lifecycle';
import { agentById, firstCallsPage } from './queries';

const sql = postgres(process.env.DATABASE_URL!, { max: 10 });
const accountId = process.env.ACCOUNT_ID!;
const app = Fastify({ logger: false });

app.get<{ Params: { id: string } }>('/agents/:id', async (request, reply) => {
  const row = await agentById(sql, accountId, request.params.id);
  if (!row) return reply.code(404).send({ success: false });
  return { data: row, success: true };
});
app.get('/calls', async () => ({ data: await firstCallsPage(sql, accountId), success: true }));

await listenUntilTerm(app, () => sql.end({ timeout: 2 }));
