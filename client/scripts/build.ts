/**
 * Builds what `pnpm pack` ships (`pnpm --filter @voice/client build`): dist/index.js, ESM for Node
 * 20+ and bundlers, and dist/index.d.ts, one declaration file in which the router's types are
 * spelled out, so it imports only the package's own dependencies.
 *
 * TypeScript compiles src/ (types checked, JavaScript and declarations emitted to a staging folder);
 * src/router.ts, the workspace's import of the gateway's router, is replaced there by the router's
 * resolved types; rollup joins the JavaScript, rollup-plugin-dts the declarations; the result is
 * then checked against the gateway's router.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import ts from 'typescript';
import { routerDeclaration } from './router-declaration';
import { failOn, verifyDeclarations } from './verify-declarations';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = path.join(PACKAGE, 'src/index.ts');
const ROUTER = path.join(PACKAGE, 'src/router.ts');
const DIST = path.join(PACKAGE, 'dist');

/** Compiler options: the workspace's, emitting JavaScript and declarations for src/. */
function compilerOptions(outDir: string): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(PACKAGE, '../tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error('cannot read tsconfig.json');
  return { ...config.options, noEmit: false, declaration: true, outDir, rootDir: path.join(PACKAGE, 'src') };
}

async function build(): Promise<void> {
  const staging = await mkdtemp(path.join(tmpdir(), 'voice-client-build-'));
  try {
    const options = compilerOptions(staging);
    const program = ts.createProgram([ENTRY, ROUTER], options);
    const own = program
      .getSourceFiles()
      .filter((file) => file.fileName.startsWith(path.join(PACKAGE, 'src')));
    failOn(
      own.flatMap((file) => ts.getPreEmitDiagnostics(program, file)),
      'src/ does not compile',
    );
    const entry = program.getSourceFile(ENTRY)!;
    const emitted = program.emit(entry);
    failOn(emitted.diagnostics, 'emit failed');
    await writeFile(path.join(staging, 'router.d.ts'), routerDeclaration(program, ROUTER, 'AppRouter'));

    await rm(DIST, { recursive: true, force: true });
    const external = (id: string) => !id.startsWith('.') && !path.isAbsolute(id);
    const code = await rollup({ input: path.join(staging, 'index.js'), external });
    await code.write({ file: path.join(DIST, 'index.js'), format: 'es' });
    const types = await rollup({ input: path.join(staging, 'index.d.ts'), external, plugins: [dts()] });
    await types.write({ file: path.join(DIST, 'index.d.ts'), format: 'es' });

    const manifest = JSON.parse(await readFile(path.join(PACKAGE, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    verifyDeclarations({
      program,
      options,
      declarations: path.join(DIST, 'index.d.ts'),
      router: ROUTER,
      allowedImports: Object.keys(manifest.dependencies ?? {}),
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

await build();
