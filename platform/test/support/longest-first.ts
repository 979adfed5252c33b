import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The suite's files run on two workers, each taking the next file when it finishes one. Vitest
// orders files by the durations it cached on this machine, and a fresh clone (CI) has none: it
// falls back to file size, so a long real-call file could start last and leave one worker idle
// at the end. This orders files by the durations recorded in `durations.json` (longest first,
// the classic greedy schedule); a file not recorded yet counts as NEW_FILE_SECONDS.

const DURATIONS = path.join(import.meta.dirname, '..', 'durations.json');
const NEW_FILE_SECONDS = 10;

/** Seconds per test file (repository-relative path), from `pnpm test:durations`. */
export function recordedDurations(file = DURATIONS): Record<string, number> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = recordedDurations();
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification) =>
      durations[path.relative(root, spec.moduleId).split(path.sep).join('/')] ?? NEW_FILE_SECONDS;
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}
