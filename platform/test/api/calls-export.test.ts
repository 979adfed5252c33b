import { readFileSync } from 'node:fs';
import { createTestDatabase, infraModes, testInfra } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Envelope } from '../support/http';
import { type PlatformProcess, spawnPlatform } from '../support/process';
import { seedCalls } from './calls-seed-support';

const ROWS = 20_000;
const HEAP_LIMIT_MB = 96;

/** Resident memory of a process, from the kernel's own accounting. */
function rssMb(pid: number): number {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(match?.[1] ?? 0) / 1024;
}

interface Account {
  accountId: string;
  key: string;
}

describe.each(infraModes())('call export (%s)', (mode) => {
  const adminToken = 'export-test-admin-token-0123456789';
  let server: PlatformProcess;
  let drop: () => Promise<void> = async () => {};
  let acme: Account;
  let other: Account;

  async function account(name: string): Promise<Account> {
    const created = await api<Envelope<{ id: string }>>(server.url!, 'POST', '/admin/accounts', {
      key: adminToken,
      body: { name, plan: 'enterprise', rate_limit_per_minute: 100_000 },
    });
    const key = await api<Envelope<{ key: string }>>(
      server.url!,
      'POST',
      `/admin/accounts/${created.body.data.id}/api-keys`,
      { key: adminToken, body: {} },
    );
    return { accountId: created.body.data.id, key: key.body.data.key };
  }

  beforeAll(async () => {
    const database = await createTestDatabase(mode);
    drop = database.drop;
    // Its own process, with a heap smaller than the export: holding the export would crash it.
    server = await spawnPlatform('all', {
      NODE_OPTIONS: `--max-old-space-size=${HEAP_LIMIT_MB}`,
      DATABASE_URL: database.url,
      PORT: '0',
      ADMIN_TOKEN: adminToken,
      ...(mode === 'nats' ? { NATS_URL: testInfra().natsUrl, BUS_PREFIX: `exp${Date.now()}` } : {}),
    });
    acme = await account('Exporter');
    other = await account('Other');
    await seedCalls(database.url, acme.accountId, ROWS);
    // A platform start and the seeding of many rows, on a loaded machine.
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
    await drop();
  });

  async function stream(path: string, key: string) {
    const response = await fetch(new URL(path, server.url), { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const pid = server.child.pid!;
    const startRss = rssMb(pid);
    let peakRss = startRss;
    let head = '';
    let lines = 0;
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      const chunk = decoder.decode(value, { stream: true });
      lines += chunk.split('\n').length - 1;
      if (head.length < 200_000) head += chunk;
      peakRss = Math.max(peakRss, rssMb(pid));
    }
    return { response, lines, head, growthMb: peakRss - startRss, outputMb: bytes / 1024 / 1024 };
  }

  it('streams all calls as JSON lines, newest first, in memory that does not grow with the row count', async () => {
    const { response, lines, head, growthMb, outputMb } = await stream(
      '/v1/calls/export?format=jsonl',
      acme.key,
    );
    expect(response.headers.get('content-type')).toContain('application/x-ndjson');
    expect(lines).toBe(ROWS);
    const [first, second] = head
      .split('\n')
      .slice(0, 2)
      .map((line) => JSON.parse(line));
    expect(first.user_id).toBe(acme.accountId);
    expect(Date.parse(first.created_at)).toBeGreaterThan(Date.parse(second.created_at));
    // The export is larger than the server's whole heap limit, and the server is still there.
    expect(outputMb).toBeGreaterThan(HEAP_LIMIT_MB / 2);
    expect(server.child.exitCode).toBeNull();
    expect((await api(server.url!, 'GET', '/v1/health')).status).toBe(200);
    // Resident memory stays bounded too (garbage collection slack, not the data).
    expect(growthMb).toBeLessThan(HEAP_LIMIT_MB);
  }, 120_000);

  it('streams CSV with a header, quoting and formula-safe cells, honouring filters', async () => {
    const { response, lines, head } = await stream('/v1/calls/export?format=csv&status=no_answer', acme.key);
    expect(response.headers.get('content-type')).toContain('text/csv');
    expect(response.headers.get('content-disposition')).toMatch(/attachment; filename="calls-.*\.csv"/);
    expect(lines).toBe(ROWS / 10 + 1);
    const [header, row] = head.split('\r\n');
    expect(header?.split(',')).toEqual(
      expect.arrayContaining(['id', 'status', 'phone_number', 'transcript', 'total_cost']),
    );
    expect(row).toContain(',no_answer,');
    expect(row).toContain(`"'=SUM(A1) summary, with ""quotes"""`);
    // Phone numbers as they are: E.164 cannot compute anything.
    expect(row).toMatch(/,\+1415555\d{4},\+14155550100,/);
  }, 120_000);

  it('exports nothing of another account, and refuses a bad format', async () => {
    const { lines } = await stream('/v1/calls/export?format=jsonl', other.key);
    expect(lines).toBe(0);
    expect((await api(server.url!, 'GET', '/v1/calls/export?format=xml', { key: acme.key })).status).toBe(
      422,
    );
    expect((await api(server.url!, 'GET', '/v1/calls/export')).status).toBe(401);
  });
});
