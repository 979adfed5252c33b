import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/process';

/**
 * Tests live on the floor they test. A floor is a workspace package: shared, each service, the
 * gateway, the client and the platform (the composition root, whose tests run everything). A test
 * may import its own floor, and the packages its floor depends on through their entry points; only
 * the platform's tests may reach into other floors' sources. No test imports another floor's tests.
 */
const DEPENDS_ON: Record<string, readonly string[]> = {
  shared: [],
  services: ['shared'],
  gateway: ['shared'],
  client: ['shared', 'gateway'],
  platform: ['*'],
};

/** Where test code lives in a floor. */
const TEST_CODE =
  /^(shared\/(test|testing)|services\/[^/]+\/test|gateway\/test|client\/test|platform\/(test|fuzz|faults|bench))\//;

function floorOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] === 'services') return parts[1] ? `services/${parts[1]}` : undefined;
  return parts[0] && parts[0] !== 'services' && parts[0] in DEPENDS_ON ? parts[0] : undefined;
}

function packageFloor(specifier: string): string | undefined {
  const name = /^@voice\/([^/]+)/.exec(specifier)?.[1];
  if (!name) return undefined;
  const service = /^(.+)-service$/.exec(name)?.[1];
  return service ? `services/${service}` : name;
}

function allowedPackage(from: string, to: string): boolean {
  if (from === to) return true;
  const deps = DEPENDS_ON[from.startsWith('services/') ? 'services' : from] ?? [];
  return deps.includes('*') || deps.includes(to);
}

/** The imports of one test file that cross floors, as `file: specifier` lines. */
function crossings(file: string, source: string): string[] {
  const from = floorOf(file);
  if (!from) return [];
  const found: string[] = [];
  // Import statements start a line (a multi-line one ends on a line starting `}`); import() anywhere.
  const statements =
    /^(?:import|export|\})[^\n]*?from\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const match of source.matchAll(statements)) {
    const specifier = (match[1] ?? match[2] ?? match[3])!;
    if (specifier.startsWith('.')) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      const to = floorOf(target);
      if (to === from) continue;
      // The composition root's tests may use any floor's sources, never its tests.
      if (from === 'platform' && to && !TEST_CODE.test(`${target}/`)) continue;
      found.push(`${file}: ${specifier}`);
    } else {
      const to = packageFloor(specifier);
      if (to && !allowedPackage(from, to)) found.push(`${file}: ${specifier}`);
    }
  }
  return found;
}

describe('test floors', () => {
  it('finds a crossing: a gateway test using the platform harness, a service test using another service', () => {
    expect(
      crossings(
        'gateway/test/x.test.ts',
        "import { startTestPlatform } from '../../platform/test/support/harness';",
      ),
    ).toHaveLength(1);
    expect(
      crossings('services/call/test/x.test.ts', "import { a } from '../../agent/src/domain/x';"),
    ).toHaveLength(1);
    expect(crossings('services/call/test/x.test.ts', "import { a } from '@voice/gateway';")).toHaveLength(1);
    expect(
      crossings('platform/test/x.test.ts', "import { a } from '../../gateway/test/helpers';"),
    ).toHaveLength(1);
    // Allowed: its own floor, a dependency's entry point, and the platform reaching sources.
    expect(crossings('services/call/test/x.test.ts', "import { a } from '../src/app/calls';")).toEqual([]);
    expect(crossings('gateway/test/x.test.ts', "import { a } from '@voice/shared/testing';")).toEqual([]);
    expect(crossings('platform/test/api/x.test.ts', "import { a } from '../../../gateway/src/app';")).toEqual(
      [],
    );
  });

  it('holds for every test file in the repository', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => TEST_CODE.test(file));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => crossings(file, readFileSync(path.join(REPO_ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
