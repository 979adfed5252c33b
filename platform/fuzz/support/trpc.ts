import fc from 'fast-check';
import { z } from 'zod';
import { OPERATIONS } from '../../../gateway/src/operations/catalogue';
import { appRouter } from '../../../gateway/src/trpc/router';
import type { JsonSchema } from './openapi';
import { type AuthChoice, authorizationFor } from './rest';
import type { HttpRequest } from './transport';
import { type Fixtures, junkValue, mutated, oddString, plausible, uri } from './values';

export interface Procedure {
  path: string;
  type: 'query' | 'mutation' | 'subscription';
  /** The input's JSON Schema, from the operation's zod schema (none for subscriptions). */
  input: JsonSchema;
}

/** Every procedure of the router, with the JSON Schema of the operation behind it. */
export function procedures(): Procedure[] {
  const defs = (
    appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: Procedure['type'] } }> } }
  )._def.procedures;
  return Object.entries(defs).map(([path, procedure]) => {
    const operation = (OPERATIONS as Record<string, { input: z.ZodType } | undefined>)[path];
    let input: JsonSchema = { type: 'object' };
    if (operation) {
      try {
        input = z.toJSONSchema(operation.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
      } catch {
        // An input zod cannot describe: fuzz it as any object.
      }
    }
    return { path, type: procedure._def.type, input };
  });
}

/** `id`-style inputs take real resources of the procedure's kind. */
function fixturesFor(path: string, fixtures: Fixtures): Fixtures {
  const kind = path.startsWith('campaigns')
    ? 'campaign_id'
    : path.startsWith('calls')
      ? 'call_id'
      : path.startsWith('agents')
        ? 'agent_id'
        : path.startsWith('sipTrunks')
          ? 'trunk_id'
          : undefined;
  if (!kind) return fixtures;
  return { ...fixtures, ids: { ...fixtures.ids, id: fixtures.ids[kind] ?? [] } };
}

const AUTH: fc.Arbitrary<AuthChoice> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<AuthChoice>('full') },
  {
    weight: 2,
    arbitrary: fc.constantFrom<AuthChoice>('none', 'readOnly', 'other', 'revoked', 'admin', 'junk'),
  },
);

function inputText(value: unknown): string {
  return JSON.stringify(value) ?? '';
}

/** tRPC over HTTP: every procedure with broken inputs, wrong methods, batches and junk paths. */
export function trpcRequest(all: Procedure[], fixtures: Fixtures): fc.Arbitrary<HttpRequest> {
  const call = fc.constantFrom(...all).chain((procedure) => {
    const own = fixturesFor(procedure.path, fixtures);
    const input = fc.oneof(
      { weight: 4, arbitrary: mutated(procedure.input, own).map(inputText) },
      { weight: 3, arbitrary: plausible(procedure.input, own).map(inputText) },
      { weight: 1, arbitrary: junkValue.map(inputText) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.constantFrom('', '{', 'undefined', 'null', '{"json":{}}', '[1]', '{"0":{}}', '"x"', '1e400'),
          oddString,
        ),
      },
    );
    return fc.record({ procedure: fc.constant(procedure), input });
  });
  const name = fc.oneof(
    { weight: 10, arbitrary: call.map(({ procedure }) => procedure.path) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constantFrom(
          'agents',
          'agents.',
          '.agents.list',
          'agents..list',
          'agents.list.',
          'nope',
          '__proto__',
          'constructor',
          'agents.__proto__',
          'toString',
          'agents.list%00',
          'agents%2Elist',
          '%2e%2e',
          '',
          'agents.list/extra',
          'AGENTS.LIST',
        ),
        oddString.map((s) => uri(s)),
      ),
    },
  );
  return fc
    .record({
      shape: fc.oneof(
        { weight: 10, arbitrary: fc.constant<'single'>('single') },
        { weight: 3, arbitrary: fc.constant<'batch'>('batch') },
        {
          weight: 1,
          arbitrary: fc.constantFrom<'wrong-method' | 'junk-name' | 'big-batch' | 'sse'>(
            'wrong-method',
            'junk-name',
            'big-batch',
            'sse',
          ),
        },
      ),
      first: call,
      more: fc.array(call, { minLength: 1, maxLength: 4 }),
      junkName: name,
      batchInput: fc.oneof(
        { weight: 6, arbitrary: fc.constant<'indexed'>('indexed') },
        { weight: 1, arbitrary: fc.constantFrom<'array' | 'junk' | 'sparse'>('array', 'junk', 'sparse') },
      ),
      contentType: fc.oneof(
        { weight: 10, arbitrary: fc.constant('application/json') },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            '',
            'application/octet-stream',
            'application/json; charset=utf-16',
          ),
        },
      ),
      auth: AUTH.chain((choice) => authorizationFor(choice, fixtures)),
      idempotency: fc.oneof(
        { weight: 2, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.oneof(fc.uuid(), fc.constantFrom('', 'short', 'k'.repeat(300))) },
      ),
    })
    .map(({ shape, first, more, junkName, batchInput, contentType, auth, idempotency }): HttpRequest => {
      const headers: [string, string][] = [...auth];
      if (idempotency !== null) headers.push(['Idempotency-Key', idempotency]);
      const write = (procedure: Procedure) => procedure.type === 'mutation';
      if (shape === 'single' || shape === 'wrong-method' || shape === 'junk-name' || shape === 'sse') {
        const path = shape === 'junk-name' ? junkName : first.procedure.path;
        let post = write(first.procedure);
        if (shape === 'wrong-method') post = !post;
        if (shape === 'sse') headers.push(['Accept', 'text/event-stream']);
        if (!post) return { method: 'GET', target: `/trpc/${path}?input=${uri(first.input)}`, headers };
        headers.push(['Content-Type', contentType]);
        return { method: 'POST', target: `/trpc/${path}`, headers, body: Buffer.from(first.input) };
      }
      const calls = shape === 'big-batch' ? Array.from({ length: 25 }, () => first) : [first, ...more];
      const post = write(first.procedure);
      const inputs = calls.map((c) => {
        try {
          return JSON.parse(c.input) as unknown;
        } catch {
          return c.input;
        }
      });
      let batch: unknown = Object.fromEntries(inputs.map((value, i) => [String(i), value]));
      if (batchInput === 'array') batch = inputs;
      if (batchInput === 'junk') batch = 'junk';
      if (batchInput === 'sparse') batch = { '7': inputs[0], '-1': null, x: 1 };
      const names = calls.map((c) => c.procedure.path).join(',');
      if (!post) {
        return {
          method: 'GET',
          target: `/trpc/${names}?batch=1&input=${uri(JSON.stringify(batch))}`,
          headers,
        };
      }
      headers.push(['Content-Type', contentType]);
      return {
        method: 'POST',
        target: `/trpc/${names}?batch=1`,
        headers,
        body: Buffer.from(JSON.stringify(batch)),
      };
    });
}
