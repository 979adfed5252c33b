import { randomUUID } from 'node:crypto';
import {
  AppError,
  type Bus,
  type CallContext,
  callRpc,
  createSql,
  InProcessBus,
  loadConfig,
  NatsBus,
  type ServiceHandle,
  type Sql,
  TELEPHONY,
} from '@voice/shared';
import { createTestDatabase, infraModes, natsUrlOrThrow, type TestDatabase } from '@voice/shared/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyService, type TelephonyServiceParts } from '../src';

const PASSWORD = `pw-${randomUUID()}`;

/** The error a request was refused with, as the asker sees it. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; detail: unknown }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the request was refused').toBeDefined();
  if (!(error instanceof AppError)) throw error;
  return { code: error.code, detail: error.detail };
}

describe.each(infraModes())('the telephony service over the bus (%s)', (mode) => {
  let db: TestDatabase;
  let sql: Sql;
  let bus: Bus;
  const lines: string[] = [];
  const services: (ServiceHandle & { parts: TelephonyServiceParts })[] = [];

  async function start(simulated: 'on' | 'off') {
    const log = pino({ level: 'trace' }, { write: (line: string) => lines.push(line) });
    const service = createTelephonyService({
      bus,
      sql,
      log,
      config: loadConfig({ SIMULATED_CARRIER: simulated, BUS_PREFIX: '' }),
    });
    await service.start();
    services.push(service);
    return service;
  }

  beforeAll(async () => {
    db = await createTestDatabase(mode);
    const log = pino({ level: 'silent' });
    sql = createSql(db.url, { max: 4, log, applicationName: 'telephony-trunks-test' });
    bus =
      mode === 'nats'
        ? await NatsBus.connect({
            servers: natsUrlOrThrow(),
            name: 'telephony-trunks-test',
            prefix: `t${Math.random().toString(36).slice(2, 10)}`,
            requestTimeoutMs: 5_000,
            log,
          })
        : new InProcessBus({ requestTimeoutMs: 5_000, log });
    await start('on');
  });
  afterAll(async () => {
    for (const service of services) await service.stop();
    await bus?.close();
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });

  const as = (accountId: string): CallContext => ({ requestId: randomUUID(), accountId });
  const create = (ctx: CallContext, body: Record<string, unknown>) =>
    callRpc(
      bus,
      TELEPHONY.createTrunk,
      { name: 'Carrier', uri: 'sip:trunk.example.com', ...body } as never,
      ctx,
    );

  it('creates, reads, lists, changes and deletes a trunk; the password is write-only', async () => {
    const ctx = as(randomUUID());
    const created = await create(ctx, {
      uri: 'sip:trunk.example.com:5080;transport=tcp',
      username: 'acme',
      password: PASSWORD,
      numbers: ['+14155550100', '+14155550101'],
      max_concurrent_calls: 5,
      calls_per_second: 2.5,
    });
    expect(created).toMatchObject({
      name: 'Carrier',
      uri: 'sip:trunk.example.com:5080;transport=tcp',
      username: 'acme',
      has_password: true,
      numbers: ['+14155550100', '+14155550101'],
      is_default: false,
      max_concurrent_calls: 5,
      calls_per_second: 2.5,
      ring_timeout_seconds: 30,
      codecs: ['PCMU', 'PCMA'],
    });
    expect(JSON.stringify(created)).not.toContain(PASSWORD);
    expect(await callRpc(bus, TELEPHONY.getTrunk, { trunk_id: created.id }, ctx)).toEqual(created);

    const changed = await callRpc(
      bus,
      TELEPHONY.updateTrunk,
      { trunk_id: created.id, changes: { name: 'Renamed', numbers: ['+14155550102'], password: null } },
      ctx,
    );
    expect(changed).toMatchObject({
      name: 'Renamed',
      numbers: ['+14155550102'],
      has_password: false,
      username: 'acme',
    });
    expect(Date.parse(changed.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));

    const page = await callRpc(bus, TELEPHONY.listTrunks, { page: 1, page_size: 20 }, ctx);
    expect(page).toMatchObject({ total: 1, items: [{ id: created.id, name: 'Renamed' }] });

    expect(await callRpc(bus, TELEPHONY.deleteTrunk, { trunk_id: created.id }, ctx)).toEqual({
      deleted: true,
    });
    expect(await refusal(callRpc(bus, TELEPHONY.getTrunk, { trunk_id: created.id }, ctx))).toMatchObject({
      code: 'SIP_TRUNK_NOT_FOUND',
    });
    // The password was stored (digest authentication needs it) and is never written to the log.
    expect(lines.join('\n')).not.toContain(PASSWORD);
  });

  it('keeps accounts apart: another account\u2019s trunk is not found, not listed, not changed', async () => {
    const owner = as(randomUUID());
    const other = as(randomUUID());
    const trunk = await create(owner, { numbers: ['+14155550200'] });
    for (const attempt of [
      () => callRpc(bus, TELEPHONY.getTrunk, { trunk_id: trunk.id }, other),
      () => callRpc(bus, TELEPHONY.updateTrunk, { trunk_id: trunk.id, changes: { name: 'Mine' } }, other),
      () => callRpc(bus, TELEPHONY.deleteTrunk, { trunk_id: trunk.id }, other),
    ]) {
      expect(await refusal(attempt())).toMatchObject({ code: 'SIP_TRUNK_NOT_FOUND' });
    }
    expect(await callRpc(bus, TELEPHONY.listTrunks, { page: 1, page_size: 20 }, other)).toMatchObject({
      total: 0,
    });
    // The same number on another account's trunk is that account's business.
    await expect(create(other, { numbers: ['+14155550200'] })).resolves.toMatchObject({
      numbers: ['+14155550200'],
    });
    expect(await callRpc(bus, TELEPHONY.getTrunk, { trunk_id: trunk.id }, owner)).toMatchObject({
      name: 'Carrier',
    });
  });

  it('holds one default per account: a new default takes over', async () => {
    const ctx = as(randomUUID());
    const first = await create(ctx, { name: 'First', is_default: true });
    const second = await create(ctx, { name: 'Second', is_default: true });
    expect(await callRpc(bus, TELEPHONY.getTrunk, { trunk_id: first.id }, ctx)).toMatchObject({
      is_default: false,
    });
    expect(second.is_default).toBe(true);
    await callRpc(bus, TELEPHONY.updateTrunk, { trunk_id: first.id, changes: { is_default: true } }, ctx);
    const page = await callRpc(bus, TELEPHONY.listTrunks, { page: 1, page_size: 20 }, ctx);
    expect(page.items.filter((t) => t.is_default).map((t) => t.name)).toEqual(['First']);
  });

  it('refuses a number another trunk of the account holds, and a password without a username', async () => {
    const ctx = as(randomUUID());
    const holder = await create(ctx, { numbers: ['+14155550300'] });
    expect(await refusal(create(ctx, { numbers: ['+14155550301', '+14155550300'] }))).toEqual({
      code: 'VALIDATION_FAILED',
      detail: [
        {
          loc: ['body', 'numbers', 1],
          msg: `+14155550300 already belongs to trunk ${holder.id}`,
          type: 'number_taken',
        },
      ],
    });
    const other = await create(ctx, {});
    expect(
      await refusal(
        callRpc(bus, TELEPHONY.updateTrunk, { trunk_id: other.id, changes: { password: 'secret' } }, ctx),
      ),
    ).toMatchObject({ code: 'VALIDATION_FAILED', detail: [{ loc: ['body', 'username'] }] });
    // Keeping its own numbers is no conflict.
    await expect(
      callRpc(
        bus,
        TELEPHONY.updateTrunk,
        { trunk_id: holder.id, changes: { numbers: ['+14155550300'] } },
        ctx,
      ),
    ).resolves.toMatchObject({ numbers: ['+14155550300'] });
  });

  it('refuses a malformed trunk URI with a 422 naming the problem', async () => {
    const problem = await refusal(create(as(randomUUID()), { uri: 'sip:user:pw@trunk.example.com' }));
    expect(problem).toMatchObject({ code: 'VALIDATION_FAILED', detail: [{ loc: ['body', 'uri'] }] });
    expect(JSON.stringify(problem.detail)).toMatch(/user or password/);
  });

  it('routes by source number, then the default trunk, then the simulated carrier', async () => {
    const ctx = as(randomUUID());
    const route = (source_number: string) => callRpc(bus, TELEPHONY.route, { source_number }, ctx);
    expect(await route('+14155550400')).toEqual({ carrier: 'simulated', matched: 'simulated', trunk: null });
    const fallback = await create(ctx, {
      name: 'Default',
      is_default: true,
      username: 'u',
      password: PASSWORD,
    });
    const listed = await create(ctx, { name: 'Listed', numbers: ['+14155550400'] });
    expect(await route('+14155550400')).toMatchObject({
      carrier: 'sip',
      matched: 'source_number',
      trunk: { id: listed.id },
    });
    const viaDefault = await route('+14155550499');
    expect(viaDefault).toMatchObject({
      carrier: 'sip',
      matched: 'default_trunk',
      trunk: { id: fallback.id, has_password: true },
    });
    expect(JSON.stringify(viaDefault)).not.toContain(PASSWORD);
    // The default trunk listing the number itself counts as a match by number.
    await callRpc(
      bus,
      TELEPHONY.updateTrunk,
      { trunk_id: fallback.id, changes: { numbers: ['+14155550498'] } },
      ctx,
    );
    expect(await route('+14155550498')).toMatchObject({
      matched: 'source_number',
      trunk: { id: fallback.id },
    });
    // The service's own dial path gets the whole row, password included, for digest authentication.
    const decision = await services[0]!.parts.router.route(ctx.accountId!, '+14155550499');
    expect(decision).toMatchObject({ carrier: 'sip', trunk: { password: PASSWORD } });
  });

  it('with SIMULATED_CARRIER=off, refuses a call no trunk carries (NO_SIP_TRUNK, 422)', async () => {
    // The service answering is the only one with the simulator off: stop the other first.
    await services.shift()!.stop();
    const strict = await start('off');
    const ctx = as(randomUUID());
    const problem = await refusal(callRpc(bus, TELEPHONY.route, { source_number: '+14155550500' }, ctx));
    expect(problem).toMatchObject({
      code: 'NO_SIP_TRUNK',
      detail: [{ loc: ['body', 'source_number'], type: 'no_sip_trunk' }],
    });
    expect(new AppError('NO_SIP_TRUNK').status).toBe(422);
    const trunk = await create(ctx, { is_default: true });
    expect(await callRpc(bus, TELEPHONY.route, { source_number: '+14155550500' }, ctx)).toMatchObject({
      carrier: 'sip',
      trunk: { id: trunk.id },
    });
    expect(strict.parts).toBeDefined();
  });
});
