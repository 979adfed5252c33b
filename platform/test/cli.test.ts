import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort } from '@voice/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from './support/harness';
import { api } from './support/http';
import { REPO_ROOT } from './support/process';

const run = promisify(execFile);

describe('operator CLI (pnpm voice)', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform('embedded');
  });
  afterAll(async () => t?.stop());

  async function voiceAt(url: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
    return run(process.execPath, ['--import', 'tsx', 'platform/src/cli/main.ts', ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, VOICE_API_URL: url, ADMIN_TOKEN: t.adminToken },
    });
  }
  const voice = (...args: string[]) => voiceAt(t.url, ...args);

  it('creates an account and a scoped key, lists keys without the secret, and revokes', async () => {
    const account = JSON.parse(
      (await voice('accounts', 'create', '--name', 'CLI Co', '--plan', 'pro', '--json')).stdout,
    );
    expect(account).toMatchObject({ name: 'CLI Co', plan: 'pro', rate_limit_per_minute: 300 });
    const key = JSON.parse(
      (await voice('keys', 'create', '--account', account.id, '--scopes', 'calls:read,agents:read', '--json'))
        .stdout,
    );
    expect(key.key).toMatch(/^vk_/);
    expect(key.scopes).toEqual(['calls:read', 'agents:read']);
    expect((await api(t.url, 'GET', '/v1/me', { key: key.key })).status).toBe(200);
    const listed = (await voice('keys', 'list', '--account', account.id)).stdout;
    expect(listed).toContain(key.id);
    expect(listed).not.toContain(key.key);
    await voice('keys', 'revoke', key.id);
    expect((await api(t.url, 'GET', '/v1/me', { key: key.key })).status).toBe(401);
  });

  it('pages accounts by cursor as by number', async () => {
    for (const name of ['Paged A', 'Paged B']) await voice('accounts', 'create', '--name', name);
    const list = async (...args: string[]) =>
      JSON.parse((await voice('accounts', 'list', '--page-size', '1', '--json', ...args)).stdout);
    const first = await list();
    expect(first).toMatchObject({ page: 1, total_exact: true, next_cursor: expect.any(String) });
    const second = await list('--cursor', first.next_cursor);
    expect(second).toMatchObject({ page: 2, items: (await list('--page', '2')).items });
    await expect(voice('accounts', 'list', '--cursor', 'edited')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('422 query.cursor'),
    });
  });

  it('fails with a clear message and exit code 1 on bad input', async () => {
    await expect(voice('accounts', 'create', '--plan', 'pro')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--name is required'),
    });
    await expect(voice('accounts', 'create', '--name', 'X', '--plan', 'gold')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('422 body.plan'),
    });
    await expect(voice('keys', 'revoke', '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('404'),
    });
  });

  it('names the address, the cause and what to check when the API cannot be reached', async () => {
    // A port nothing listens on: taken, then released.
    const closed = `http://127.0.0.1:${await freePort()}`;
    const { code, stderr } = await voiceAt(closed, 'accounts', 'list').then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot reach the admin API at ${closed} (GET /admin/accounts)`);
    expect(stderr).toContain('connection refused');
    expect(stderr).toContain('(ECONNREFUSED)');
    expect(stderr).toContain('VOICE_API_URL');
    expect(stderr).not.toMatch(/^voice: fetch failed$/m);

    await expect(voiceAt('not a url', 'accounts', 'list')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("VOICE_API_URL is not a URL: 'not a url'"),
    });
  });
});
