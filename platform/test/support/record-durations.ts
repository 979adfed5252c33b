import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// `pnpm test:durations <vitest JSON report> [checkout it ran in]`: writes each test file's wall
// time in that run to platform/test/durations.json, which orders the next runs (longest-first.ts).
// Refresh it after adding or much changing a long test file; a report of part of the suite updates
// those files only. The checkout defaults to this one (give it for a report made in a clone).

interface JsonReport {
  testResults: { name: string; startTime: number; endTime: number }[];
}

const [reportFile, ranIn] = process.argv.slice(2);
if (!reportFile) {
  console.error('usage: pnpm test:durations <report.json from vitest --reporter=json> [checkout]');
  process.exit(2);
}
const repoRoot = path.join(import.meta.dirname, '..', '..', '..');
const target = path.join(repoRoot, 'platform', 'test', 'durations.json');
const reportRoot = ranIn ? path.resolve(ranIn) : repoRoot;
const report = JSON.parse(readFileSync(reportFile, 'utf8')) as JsonReport;
const durations: Record<string, number> = (() => {
  try {
    return JSON.parse(readFileSync(target, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
})();
for (const result of report.testResults) {
  const file = path.relative(reportRoot, result.name).split(path.sep).join('/');
  durations[file] = Math.max(1, Math.round((result.endTime - result.startTime) / 1000));
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(target, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${report.testResults.length} files recorded in ${path.relative(repoRoot, target)}`);
