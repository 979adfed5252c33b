/**
 * References (c) and (d): bare Fastify -> NATS request-reply -> responder.ts (another process)
 * running the same query. (c) is GET /agents/:id and GET /calls (the cost of the hop alone);
 * (d) is POST /call, validated with zod first, answered by the responder's INSERT.
 * NATS_URL, SUBJECT_PREFIX; prints `listening <url>`.
 */
import { connect } from '@nats-io/transport-node';
import Fastify from 'fastify';
import { z } from 'zod';
import { listenUntilTerm } from './lifecycle';

const E164 = z.string().regex(/^\+[1-9]\d{7,14}$/);
const MakeCall = z.object({
  agent_id: z.uuid(),
  source_number: E164,
  phone_number: E164,
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
});

const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const prefix = process.env.SUBJECT_PREFIX ?? 'benchref';
const app = Fastify({ logger: false });

async function ask(subject: string, data: unknown): Promise<{ status: number; body: string }> {
  const reply = await nc.request(`${prefix}.${subject}`, JSON.stringify(data), { timeout: 5000 });
  const text = reply.string();
  return { status: text === 'null' ? 404 : 200, body: text };
}

app.get<{ Params: { id: string } }>('/agents/:id', async (request, reply) => {
  const answer = await ask('agent.get', { id: request.params.id });
  return reply.code(answer.status).type('application/json').send(`{"data":${answer.body},"success":true}`);
});
app.get('/calls', async (_request, reply) => {
  const answer = await ask('calls.list', {});
  return reply.type('application/json').send(`{"data":${answer.body},"success":true}`);
});
app.post('/call', async (request, reply) => {
  const parsed = MakeCall.safeParse(request.body);
  if (!parsed.success) return reply.code(422).send({ success: false, detail: parsed.error.issues });
  const answer = await ask('call.insert', parsed.data);
  return reply.code(201).type('application/json').send(`{"data":${answer.body},"success":true}`);
});

await listenUntilTerm(app, () => nc.drain());
