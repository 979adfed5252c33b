import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BANNER = /running at (http:\/\/\S+)[\s\S]*Development API key: (\S+)/;

export interface RunningPlatform {
  url: string;
  apiKey: string;
  stop(): Promise<void>;
}

/**
 * The platform as `pnpm start` runs it (the embedded default: its own PostgreSQL in a fresh data
 * folder), in a process of its own: the client reaches it only over HTTP, with the development key
 * its banner prints.
 */
export async function startPlatform(timeoutMs = 90_000): Promise<RunningPlatform> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'voice-client-platform-'));
  // Traversable by the user PostgreSQL runs as under root, so the cluster stays inside this folder.
  await chmod(dataDir, 0o755);
  const child = spawn(process.execPath, ['--import', 'tsx', 'platform/src/main.ts', 'all'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const [, url = '', apiKey = ''] = await banner(child, exited, timeoutMs);
    return { url, apiKey, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The start-up banner, or why it never came (the process's output). */
function banner(child: ChildProcess, exited: Promise<unknown>, timeoutMs: number): Promise<RegExpExecArray> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = BANNER.exec(output);
      if (!found) return;
      clearTimeout(timer);
      resolve(found);
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the platform exited before it started:\n${output}`));
    });
  });
}
