import { access, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsumerProject, installPackedClient } from './support/consumer-project';
import { type RunningPlatform, startPlatform } from './support/platform';

const FIXTURE = fileURLToPath(new URL('./fixtures/consumer.ts', import.meta.url));
const CALL_INPUT = '{ agent_id: agentId, source_number';

/**
 * @voice/client as a third party gets it: packed (which builds it), installed with npm in a project
 * outside the workspace, compiled against with `tsc --module nodenext --strict`, and run with plain
 * node against a platform started as `pnpm start` starts it.
 */
describe('the packed @voice/client, installed outside the workspace', () => {
  let consumer: ConsumerProject | undefined;
  let platform: RunningPlatform | undefined;
  let source: string;

  beforeAll(async () => {
    source = await readFile(FIXTURE, 'utf8');
    // Both take a while; neither needs the other.
    const [installed, started] = await Promise.allSettled([installPackedClient(), startPlatform()]);
    if (installed.status === 'fulfilled') consumer = installed.value;
    if (started.status === 'fulfilled') platform = started.value;
    for (const outcome of [installed, started]) if (outcome.status === 'rejected') throw outcome.reason;
  });

  afterAll(async () => {
    await Promise.all([consumer?.remove(), platform?.stop()]);
  });

  it('ships built JavaScript and one declaration file that imports nothing from the workspace', async () => {
    const installed = path.join(consumer!.dir, 'node_modules/@voice/client');
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.exports).toEqual({ '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@trpc/client',
      '@trpc/server',
      'eventsource',
    ]);
    const declarations = await readFile(path.join(installed, 'dist/index.d.ts'), 'utf8');
    const imported = new Set(
      [...declarations.matchAll(/from '([^']+)'|import\('([^']+)'\)/g)].map((m) => m[1] ?? m[2]),
    );
    expect([...imported].sort()).toEqual(['@trpc/client', '@trpc/server']);
    expect(declarations).toMatch(/^type AppRouter = TRPCBuiltRouter</m);

    const exported = await consumer!.exec(process.execPath, [
      '--input-type=module',
      '--eval',
      "console.log(Object.keys(await import('@voice/client')).sort().join(' '))",
    ]);
    expect(exported.trim()).toBe('createVoiceClient idempotent isVoiceError');
  });

  it('compiles a typed consumer under nodenext and strict, and refuses a misspelt input field', async () => {
    // The same program twice, the second with one input field misspelt: the router's types are
    // there, not `any`. One tsc run checks both (the client's types are the slow part to load);
    // it emits consumer.js for the next test, as tsc emits despite errors elsewhere.
    expect(source.split(CALL_INPUT)).toHaveLength(2);
    await writeFile(path.join(consumer!.dir, 'consumer.ts'), source);
    await writeFile(
      path.join(consumer!.dir, 'misspelt.ts'),
      source.replace(CALL_INPUT, CALL_INPUT.replace('agent_id', 'agent_ID')),
    );
    const both = await consumer!.compile(['consumer.ts', 'misspelt.ts'], { emit: true });
    expect(both.ok).toBe(false);
    const errors = both.output.split('\n').filter((line) => line.includes('error TS'));
    expect(errors, both.output).toHaveLength(1);
    expect(errors[0]).toMatch(/^misspelt\.ts\(\d+,\d+\): error TS2561: .*'agent_ID' does not exist in type/);
    expect(errors[0]).toContain("Did you mean to write 'agent_id'?");
    expect(both.output, 'consumer.ts compiles cleanly').not.toContain('consumer.ts');
    await access(path.join(consumer!.dir, 'consumer.js'));
  });

  it('runs with plain node against the platform: mutations, queries, a subscription and typed errors', async () => {
    const printed = await consumer!.exec(process.execPath, ['consumer.js', platform!.url, platform!.apiKey]);
    const seen = JSON.parse(printed.trim());
    expect(seen.call).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.agentOfCall).toBe(seen.agent);
    expect(seen.streamed.call).toBe(seen.call);
    expect(['initializing', 'ringing', 'in_progress', 'completed']).toContain(seen.streamed.status);
    expect(seen.missing).toBe('NOT_FOUND AGENT_NOT_FOUND');
  });
});
