import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));
const TSC = require.resolve('typescript/bin/tsc');
/** The @types/node this workspace compiles against, so the consumer sees the same Node API. */
const TYPES_NODE = (
  JSON.parse(await readFile(require.resolve('@types/node/package.json', { paths: [PACKAGE] }), 'utf8')) as {
    version: string;
  }
).version;

export interface Compiled {
  ok: boolean;
  /** tsc's diagnostics, one per line. */
  output: string;
}

/** A project of a third party, outside the workspace, with the packed @voice/client installed. */
export interface ConsumerProject {
  dir: string;
  /**
   * `tsc --module nodenext --strict` on files of the project, as one program (emitting their .js
   * when asked, even with errors, as tsc does by default).
   */
  compile(files: string[], options?: { emit?: boolean }): Promise<Compiled>;
  /** Runs a command in the project, answering its standard output. */
  exec(command: string, args: string[], timeoutMs?: number): Promise<string>;
  remove(): Promise<void>;
}

/**
 * Packs the client (`pnpm pack`, whose prepack runs the build) and installs the tarball with npm
 * in a fresh project under the system's temporary folder, where nothing of the workspace resolves.
 * npm prefers its cache; `--legacy-peer-deps` because @trpc/client names TypeScript as a peer,
 * which npm would install, and the workspace's compiler is the one under test.
 */
export async function installPackedClient(): Promise<ConsumerProject> {
  const dir = await mkdtemp(path.join(tmpdir(), 'voice-client-consumer-'));
  try {
    const tarballs = path.join(dir, 'tarball');
    await mkdir(tarballs);
    await run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: PACKAGE });
    const [tarball] = await readdir(tarballs);
    if (!tarball) throw new Error('pnpm pack wrote no tarball');
    await writeFile(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'voice-client-consumer', private: true, type: 'module' }),
    );
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--legacy-peer-deps',
        `./tarball/${tarball}`,
        `@types/node@${TYPES_NODE}`,
      ],
      { cwd: dir },
    );
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    async compile(files, { emit = false } = {}) {
      const args = ['--module', 'nodenext', '--moduleResolution', 'nodenext', '--strict', '--types', 'node'];
      try {
        await run(process.execPath, [TSC, ...args, ...(emit ? [] : ['--noEmit']), ...files], {
          cwd: dir,
        });
        return { ok: true, output: '' };
      } catch (error) {
        const { stdout, stderr } = error as { stdout?: string; stderr?: string };
        if (stdout === undefined) throw error;
        return { ok: false, output: `${stdout}${stderr ?? ''}`.trim() };
      }
    },
    async exec(command, args, timeoutMs = 60_000) {
      return (await run(command, args, { cwd: dir, timeout: timeoutMs })).stdout;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
