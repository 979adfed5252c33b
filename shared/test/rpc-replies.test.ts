import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Bus, BusRemoteError, callRpc, callRpcJson, InProcessBus, NatsBus, serveRpc } from '../src/bus';
import * as contracts from '../src/contracts';
import { type RpcContract, rpc } from '../src/contracts';
import { AppError } from '../src/errors';
import type { Logger } from '../src/log';
import { infraModes, natsUrlOrThrow } from '../testing';
import { rejectionOf } from './support/rejection';

type LogLine = Record<string, unknown> & { msg: string };

function isContract(value: unknown): value is RpcContract {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as RpcContract).subject === 'string' &&
    (value as RpcContract).reply instanceof z.ZodType
  );
}

/** Every request/reply contract the services serve, found in the contract modules' groups (AGENT, CALL, ...). */
function allContracts(): RpcContract[] {
  const found = new Map<string, RpcContract>();
  for (const group of Object.values(contracts)) {
    if (typeof group !== 'object' || group === null) continue;
    for (const value of Object.values(group)) if (isContract(value)) found.set(value.subject, value);
  }
  return [...found.values()];
}

/**
 * A JSON Schema without what differs between a schema's input and output when a second parse
 * changes nothing: unknown keys (stripped on output) and defaults (an output always has the value,
 * which the input side then accepts as given). A transform or pipe still shows, as another type.
 */
const IDEMPOTENT_DIFFERENCES = new Set(['additionalProperties', 'required', 'default']);
function typesOnly(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(typesOnly);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !IDEMPOTENT_DIFFERENCES.has(key))
      .map(([key, value]) => [key, typesOnly(value)]),
  );
}

describe('reply schemas', () => {
  it('finds the contracts', () => {
    const subjects = allContracts().map((c) => c.subject);
    expect(subjects).toEqual(expect.arrayContaining(['agent.get', 'call.create', 'campaign.get']));
  });

  // callRpc does not parse a reply again (serveRpc did): sound only while what a reply schema
  // outputs is what it accepts, i.e. no transform, default or pipe changes a reply on the way.
  it.each(allContracts().map((c) => [c.subject, c] as const))(
    '%s: what the reply schema outputs is what it accepts, so one check suffices',
    (_subject, contract) => {
      const options = { unrepresentable: 'any', cycles: 'ref', reused: 'inline' } as const;
      const input = z.toJSONSchema(contract.reply, { ...options, io: 'input' });
      const output = z.toJSONSchema(contract.reply, { ...options, io: 'output' });
      expect(typesOnly(input)).toEqual(typesOnly(output));
    },
  );
});

const Doubling = rpc(
  'test.double',
  z.object({ n: z.number() }),
  z.object({ twice: z.number(), note: z.string() }),
);

for (const mode of infraModes()) {
  describe(`serveRpc and callRpc (${mode})`, () => {
    const open: Bus[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((bus) => bus.close()));
    });

    async function busWithLog(): Promise<{ bus: Bus; lines: LogLine[]; log: Logger }> {
      const lines: LogLine[] = [];
      const log = pino(
        { level: 'info' },
        { write: (line: string) => lines.push(JSON.parse(line) as LogLine) },
      );
      const bus =
        mode === 'nats'
          ? await NatsBus.connect({
              servers: natsUrlOrThrow(),
              name: 'rpc-replies',
              prefix: `t${Math.random().toString(36).slice(2, 10)}`,
              requestTimeoutMs: 2_000,
              log,
            })
          : new InProcessBus({ requestTimeoutMs: 2_000, log });
      open.push(bus);
      return { bus, lines, log };
    }

    it('a reply outside its contract is refused by the service: the caller gets INTERNAL', async () => {
      const { bus, lines, log } = await busWithLog();
      serveRpc(bus, Doubling, async ({ n }) => ({ twice: String(n * 2) }) as never, { queue: 'test', log });
      const error = await rejectionOf(callRpc(bus, Doubling, { n: 2 }, { requestId: 'r-1' }), BusRemoteError);
      expect(error.code).toBe('INTERNAL');
      expect(lines.some((line) => line.msg === 'reply does not match its contract')).toBe(true);
    });

    it("returns the service's checked reply, and its JSON text as it arrived", async () => {
      const { bus, log } = await busWithLog();
      // Unknown keys are stripped by the service's check, so they never reach the caller.
      serveRpc(bus, Doubling, async ({ n }) => ({ twice: n * 2, note: 'é "q"', extra: 1 }), {
        queue: 'test',
        log,
      });
      const reply = await callRpc(bus, Doubling, { n: 21 }, { requestId: 'r-2' });
      expect(reply).toEqual({ twice: 42, note: 'é "q"' });
      const text = await callRpcJson(bus, Doubling, { n: 21 }, { requestId: 'r-3' });
      expect(text).toBe(JSON.stringify(reply));
    });

    it('answers a reply as its JSON text: none for a reply without a value, errors thrown as ever', async () => {
      const { bus, log } = await busWithLog();
      const Nothing = rpc('test.nothing', z.object({ fail: z.boolean() }), z.undefined());
      serveRpc(
        bus,
        Nothing,
        async ({ fail }) => {
          if (fail) throw new AppError('AGENT_NOT_FOUND');
          return undefined;
        },
        { queue: 'test', log },
      );
      expect(await callRpcJson(bus, Nothing, { fail: false }, { requestId: 'r-4' })).toBeUndefined();
      const error = await rejectionOf(
        callRpcJson(bus, Nothing, { fail: true }, { requestId: 'r-5' }),
        BusRemoteError,
      );
      expect(error.code).toBe('AGENT_NOT_FOUND');
    });
  });
}
