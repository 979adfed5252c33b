import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processExists } from '../testing';

const FIXTURE = fileURLToPath(new URL('./fixtures/stalled-stdout.ts', import.meta.url));

describe('logging to a stdout nobody reads', () => {
  let shell: ChildProcess | undefined;
  afterEach(() => {
    shell?.kill('SIGKILL');
  });

  it('does not keep the process from exiting', async () => {
    // `| sleep`: a pipe as a shell makes it (blocking), whose reader is alive but never reads,
    // as a stuck log collector or a paused pager would be.
    shell = spawn('sh', ['-c', `exec "${process.execPath}" --import tsx "${FIXTURE}" | sleep 600`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    shell.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await vi.waitFor(() => expect(stderr).toMatch(/pid \d+ exiting/), { timeout: 60_000, interval: 20 });
    const pid = Number(/pid (\d+) exiting/.exec(stderr)![1]);
    // Before the fix the exit's synchronous flush waited for the reader for ever.
    await vi.waitFor(() => expect(processExists(pid), `process ${pid} still running`).toBe(false), {
      timeout: 60_000,
      interval: 50,
    });
  });
});
