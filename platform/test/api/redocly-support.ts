import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

export interface LintReport {
  totals: { errors: number; warnings: number };
  problems: LintProblem[];
}

const require = createRequire(import.meta.url);
const CLI = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

/**
 * `redocly lint --extends recommended` over `doc`, as CI would run the npm package's binary: in a
 * fresh directory (no redocly.yaml of ours applies), offline (no telemetry, no update check).
 */
export async function redoclyLint(doc: unknown): Promise<LintReport> {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [CLI, 'lint', '--extends', 'recommended', '--format', 'json', file],
        {
          cwd: dir,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
          maxBuffer: 64 * 1024 * 1024,
          timeout: 60_000,
        },
        // It exits non-zero when it finds errors: the report is on stdout all the same.
        (error, out) => (out ? resolve(out) : reject(error ?? new Error('redocly printed nothing'))),
      );
    });
    return JSON.parse(stdout) as LintReport;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
