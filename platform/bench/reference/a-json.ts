/**
 * Reference (a): a bare Fastify JSON route, no database, no bus. The ceiling of HTTP on this machine.
 * PORT=0 picks a free port; prints `listening <url>` when ready.
 */
import Fastify from 'fastify';
import { listenUntilTerm } from './lifecycle';

const app = Fastify({ logger: false });
const payload = {
  data: { id: '3f1c2b9e-0d4a-4c59-9a57-2b7f3e6d8c10', name: 'Riley', language: 'en', voice: 'ava' },
  success: true,
};
app.get('/json', async () => ({ ...payload, timestamp: new Date().toISOString() }));

await listenUntilTerm(app);
