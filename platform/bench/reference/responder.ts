/**
 * The bare responder behind references (c) and (d): answers NATS requests with the platform's
 * queries (queue group, like a service). NATS_URL, SUBJECT_PREFIX, DATABASE_URL, ACCOUNT_ID;
 * prints `ready` once subscribed.
 */
import { connect, type Msg } from '@nats-io/transport-node';
import postgres from 'postgres';
import { exitOnTerm } from './lifecycle';
import { agentById, ensureReferenceTable, firstCallsPage, insertCall } from './queries';

const sql = postgres(process.env.DATABASE_URL!, { max: 10 });
const accountId = process.env.ACCOUNT_ID!;
const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const prefix = process.env.SUBJECT_PREFIX ?? 'benchref';
await ensureReferenceTable(sql);

function serve(subject: string, handle: (request: never) => Promise<unknown>): void {
  nc.subscribe(`${prefix}.${subject}`, {
    queue: 'responder',
    callback: (error, msg: Msg) => {
      if (error) return;
      handle(msg.json() as never).then(
        (answer) => msg.respond(JSON.stringify(answer ?? null)),
        (failure: unknown) => msg.respond(JSON.stringify({ error: String(failure) })),
      );
    },
  });
}

serve('agent.get', (request: { id: string }) => agentById(sql, accountId, request.id));
serve('calls.list', () => firstCallsPage(sql, accountId));
serve('call.insert', (body: Parameters<typeof insertCall>[2]) => insertCall(sql, accountId, body));
await nc.flush();
process.stdout.write('ready\n');
exitOnTerm(() => nc.drain().then(() => sql.end({ timeout: 2 })));
