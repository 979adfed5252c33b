import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface PublishedDeclarations {
  /** The program that compiled src/ (reused, so the gateway is not checked twice). */
  program: ts.Program;
  options: ts.CompilerOptions;
  /** The bundled declaration file. */
  declarations: string;
  /** The workspace's router module (src/router.ts). */
  router: string;
  /** The packages the declarations may import: the package's dependencies. */
  allowedImports: string[];
}

/**
 * Fails unless the bundled declarations import nothing but the package's dependencies and describe
 * the very router the gateway serves: the same inputs, outputs and error shape, and a client of the
 * same shape (queries, mutations and subscriptions where the gateway has them).
 */
export function verifyDeclarations(published: PublishedDeclarations): void {
  const text = readFileSync(published.declarations, 'utf8');
  const file = ts.createSourceFile(published.declarations, text, ts.ScriptTarget.Latest, true);
  const foreign = importedModules(file).filter(
    (module) =>
      !published.allowedImports.some((allowed) => module === allowed || module.startsWith(`${allowed}/`)),
  );
  if (foreign.length > 0) {
    throw new Error(`${published.declarations} imports ${foreign.join(', ')}, which are not dependencies`);
  }

  const check = path.join(path.dirname(published.router), '__published-types-check__.ts');
  const specifier = path
    .relative(path.dirname(check), published.declarations)
    .replace(/\.d\.ts$/, '.js')
    .replaceAll(path.sep, '/');
  const source = [
    "import type { TRPCClient } from '@trpc/client';",
    "import type { inferRouterError, inferRouterInputs, inferRouterOutputs } from '@trpc/server';",
    `import type { AppRouter as Published } from '${specifier.startsWith('.') ? specifier : `./${specifier}`}';`,
    `import type { AppRouter as Source } from './${path.basename(published.router, '.ts')}';`,
    // Identical, not merely assignable both ways: an `any` anywhere would pass the latter.
    'type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;',
    'export const inputs: Same<inferRouterInputs<Published>, inferRouterInputs<Source>> = true;',
    'export const outputs: Same<inferRouterOutputs<Published>, inferRouterOutputs<Source>> = true;',
    'export const errors: Same<inferRouterError<Published>, inferRouterError<Source>> = true;',
    'export const client: Same<TRPCClient<Published>, TRPCClient<Source>> = true;',
    '',
  ].join('\n');
  const options = { ...published.options, noEmit: true };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === check ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === check || fileExists(name);
  const program = ts.createProgram({ rootNames: [check], options, host, oldProgram: published.program });
  failOn(
    ts.getPreEmitDiagnostics(program, program.getSourceFile(check)),
    `${published.declarations} does not describe the gateway's router`,
  );
}

/** Every module a declaration file imports or re-exports from, `import("...")` types included. */
function importedModules(file: ts.SourceFile): string[] {
  const modules: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) modules.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal)) modules.push(literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return modules;
}

export function failOn(diagnostics: readonly ts.Diagnostic[], what: string): void {
  if (diagnostics.length === 0) return;
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => process.cwd(),
    getNewLine: () => '\n',
  };
  throw new Error(`${what}:\n${ts.formatDiagnostics(diagnostics, host)}`);
}
