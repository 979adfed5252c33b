import { randomBytes } from 'node:crypto';
import type { Call } from '@voice/shared';
import { createTestDatabase, infraModes, parseExposition, type TestDatabase } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from './support/accounts';
import { api, type Envelope } from './support/http';
import { natsProcessEnv, type PlatformProcess, spawnPlatform, spawnService } from './support/process';

/** The address a process logged for its metrics listener (METRICS_PORT=0 picks a free port). */
function metricsUrlOf(proc: PlatformProcess): string {
  const url = /"metrics_url":"(http:\/\/[^"]+)"/.exec(proc.output())?.[1];
  if (!url) throw new Error(`no metrics address in the output:\n${proc.output()}`);
  return url;
}

async function scrape(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

/**
 * Every component as its own process on NATS + PostgreSQL: a service process has no API port,
 * so with METRICS_PORT it serves /metrics on a listener of its own; without it, none (and the
 * gateway keeps /metrics off its API port).
 */
describe.runIf(infraModes().includes('nats'))('/metrics of component processes (NATS + PostgreSQL)', () => {
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  let database: TestDatabase;
  let processes: PlatformProcess[] = [];
  let gateway: PlatformProcess;
  let agent: PlatformProcess;
  let call: PlatformProcess;
  let campaign: PlatformProcess;
  /** Routes each call to its carrier at placement. */
  let telephony: PlatformProcess;

  beforeAll(async () => {
    database = await createTestDatabase('nats');
    const env = natsProcessEnv(
      { databaseUrl: database.url, prefix: 'metrics', adminToken, simTimeScale: 0.002 },
      { DATABASE_POOL_SIZE: '2' },
    );
    const withMetrics = { ...env, METRICS_PORT: '0' };
    [gateway, agent, call, campaign, telephony] = await Promise.all([
      spawnPlatform('gateway', env),
      spawnService('agent', withMetrics),
      spawnService('call', withMetrics),
      spawnService('campaign', env),
      spawnService('telephony', env),
    ]);
    processes = [gateway, agent, call, campaign, telephony];
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await database?.drop();
  });

  it('serves each service process its own /metrics, labelled with its role', async () => {
    const { key } = await createAccount({ url: gateway.url!, adminToken }, { name: 'Metrics' });
    const created = await api<Envelope<{ id: string }>>(gateway.url!, 'POST', '/v1/agents', {
      key,
      body: { name: 'Counted', start_flow: 'Hi, this is Counted.', end_flow: 'Goodbye!' },
    });
    expect(created.status, created.text).toBe(201);
    const placed = await api<Envelope<Call>>(gateway.url!, 'POST', '/v1/call', {
      key,
      body: { agent_id: created.body.data.id, source_number: '+14155550100', phone_number: '+14155551234' },
    });
    expect(placed.status, placed.text).toBe(201);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const got = await api<Envelope<Call>>(gateway.url!, 'GET', `/v1/calls/${placed.body.data.id}`, { key });
      if (got.body.data.ended_at) break;
      if (Date.now() > deadline) throw new Error('call did not end');
      await new Promise((r) => setTimeout(r, 50));
    }

    const calls = await scrape(metricsUrlOf(call));
    expect(calls.sum('calls_transitions_total', { status: 'initializing', role: 'call' })).toBe(1);
    expect(calls.sum('calls_transitions_total', { status: 'completed', role: 'call' })).toBe(1);
    expect(calls.sum('bus_handler_duration_seconds_count', { subject: 'call.create', outcome: 'ok' })).toBe(
      1,
    );
    // The call service asked the agent service for the agent's snapshot.
    expect(
      calls.sum('bus_request_duration_seconds_count', { subject: 'agent.snapshot', outcome: 'ok' }),
    ).toBe(1);
    expect(calls.find('process_resident_memory_bytes', { role: 'call' })).toHaveLength(1);
    // Only what this process runs: no gateway or webhook families.
    expect(calls.find('http_requests_total')).toHaveLength(0);
    expect(calls.find('webhook_attempts_total')).toHaveLength(0);

    const agents = await scrape(metricsUrlOf(agent));
    expect(agents.sum('bus_handler_duration_seconds_count', { subject: 'agent.create', role: 'agent' })).toBe(
      1,
    );
    expect(
      agents.sum('bus_handler_duration_seconds_count', { subject: 'agent.snapshot', outcome: 'ok' }),
    ).toBe(1);
  });

  it('serves none without METRICS_PORT: not on the gateway API port, not from a service', async () => {
    expect((await api(gateway.url!, 'GET', '/metrics')).status).toBe(404);
    expect(gateway.output()).not.toContain('Metrics:');
    expect(campaign.output()).toContain('metrics are not served: set METRICS_PORT');
    expect(campaign.output()).not.toContain('"metrics_url":"http');
  });

  it('closes the metrics listener on a graceful stop', async () => {
    const url = metricsUrlOf(agent);
    await scrape(url);
    expect(await agent.stop('SIGTERM')).toBe(0);
    await expect(fetch(url)).rejects.toThrow();
  });
});
