import ts from 'typescript';

/**
 * Writes a tRPC router's type as a self-contained declaration module: every procedure's input and
 * output spelled out as the type checker resolves them, tRPC's public types imported from
 * @trpc/server, the default library's globals kept, and every other named type (the gateway's error
 * shape, the error catalogue's codes, tRPC types it does not export) declared in the module itself.
 * A name it cannot place fails the build rather than reaching the published types.
 *
 * Declaration bundlers copy declarations as written, and the gateway's router type names its
 * context (the gateway's dependencies: Fastify, postgres.js, NATS) and zod schemas; this prints the
 * types the client actually sees instead.
 */

const TRPC_SERVER = '@trpc/server';
const FLAGS = ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.MultilineObjectLiterals;
const printer = ts.createPrinter();
const scratch = ts.createSourceFile('print.ts', '', ts.ScriptTarget.Latest);

type Print = (type: ts.Type, options?: { flags?: ts.NodeBuilderFlags; scope?: string[] }) => string;

export function routerDeclaration(program: ts.Program, routerFile: string, exportName: string): string {
  const checker = program.getTypeChecker();
  const { type: router, origin } = exportedType(checker, program, routerFile, exportName);
  const def = property(checker, router, '_def');
  const root = property(checker, property(checker, def, '_config'), '$types');
  const record = property(checker, def, 'record');

  const isLibrary = (symbol: ts.Symbol) => isDefaultLibrary(program, symbol);
  const names = new NamedTypes(checker, isLibrary);
  const trpc = trpcExports(program, checker, [routerFile, origin]);
  const imports = new Map<string, string>(); // local name -> @trpc/server export
  const declarations: string[] = [];
  const pending: string[] = [];
  const placed = new Set<string>();

  /** Prints a type, queueing every name it uses (other than type parameters in scope) for placement. */
  const print: Print = (type, { flags = FLAGS, scope = [] } = {}) => {
    // In a type alias's own declaration the printer spells out its body, not its name.
    names.collect(type, (flags & ts.NodeBuilderFlags.InTypeAlias) !== 0);
    const node = checker.typeToTypeNode(type, undefined, flags);
    if (!node) throw new Error(`cannot print ${checker.typeToString(type)}`);
    pending.push(...referencedNames(node).filter((name) => !scope.includes(name)));
    return printNode(node);
  };

  const rootTypes = ['meta', 'errorShape', 'transformer']
    .map((name) => `${name}: ${print(property(checker, root, name))};`)
    .join(' ');
  // The context is the server's business; a client never sees it.
  const body = `TRPCBuiltRouter<{ ctx: object; ${rootTypes} }, ${print(record)}>`;

  while (pending.length > 0) {
    const name = pending.pop()!;
    if (placed.has(name)) continue;
    placed.add(name);
    const symbol = names.get(name);
    if (isLibrary(symbol)) continue;
    const exported = trpc.get(symbol);
    if (exported) imports.set(name, exported);
    else declarations.push(declare(checker, symbol, print));
  }
  if (placed.has('TRPCBuiltRouter')) throw new Error('the router names a type TRPCBuiltRouter of its own');
  const specifiers = [...imports].map(([local, exported]) =>
    local === exported ? local : `${exported} as ${local}`,
  );
  return [
    `import type { ${['TRPCBuiltRouter', ...specifiers].sort().join(', ')} } from '${TRPC_SERVER}';`,
    '',
    `export type ${exportName} = ${body};`,
    '',
    ...declarations,
    '',
  ].join('\n');
}

/** The declaration of a named type that consumers cannot import: an interface or a type alias. */
function declare(checker: ts.TypeChecker, symbol: ts.Symbol, print: Print): string {
  const declared = checker.getDeclaredTypeOfSymbol(symbol);
  const parameters =
    (declared.isClassOrInterface() ? declared.typeParameters : undefined) ??
    aliasTypeParameters(checker, symbol);
  const scope = parameters?.map((parameter) => parameter.symbol.name) ?? [];
  const generics = parameters?.length
    ? `<${parameters.map((parameter) => printNode(checker.typeParameterToDeclaration(parameter, undefined, FLAGS))).join(', ')}>`
    : '';
  if (symbol.flags & ts.SymbolFlags.Interface) {
    if (checker.getIndexInfosOfType(declared).length > 0 || declared.getCallSignatures().length > 0) {
      throw new Error(`interface ${symbol.name} has index or call signatures, which this cannot print`);
    }
    const members = checker.getPropertiesOfType(declared).map((member) => {
      const docs = ts.displayPartsToString(member.getDocumentationComment(checker)).trim();
      const comment = docs ? `  /** ${docs.replace(/\s*\n\s*/g, ' ')} */\n` : '';
      const readonly = member.declarations?.some(
        (declaration) => ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly,
      );
      const name = /^[A-Za-z_$][\w$]*$/.test(member.name) ? member.name : JSON.stringify(member.name);
      const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
      const type = print(checker.getTypeOfSymbol(member), { scope });
      return `${comment}  ${readonly ? 'readonly ' : ''}${name}${optional}: ${type};`;
    });
    return `interface ${symbol.name}${generics} {\n${members.join('\n')}\n}`;
  }
  if (symbol.flags & ts.SymbolFlags.TypeAlias) {
    const flags = FLAGS | ts.NodeBuilderFlags.InTypeAlias;
    return `type ${symbol.name}${generics} = ${print(declared, { flags, scope })};`;
  }
  throw new Error(`${symbol.name} is neither an interface nor a type alias`);
}

function printNode(node: ts.Node | undefined): string {
  if (!node) throw new Error('nothing to print');
  return printer.printNode(ts.EmitHint.Unspecified, node, scratch);
}

function aliasTypeParameters(checker: ts.TypeChecker, symbol: ts.Symbol): ts.TypeParameter[] | undefined {
  const declaration = symbol.declarations?.find(ts.isTypeAliasDeclaration);
  return declaration?.typeParameters?.map(
    (parameter) => checker.getTypeAtLocation(parameter) as ts.TypeParameter,
  );
}

/** Every name a printed type refers to; a qualified name, `typeof` or `import()` cannot be placed. */
function referencedNames(node: ts.Node): string[] {
  const found: string[] = [];
  const visit = (child: ts.Node): void => {
    if (ts.isTypeReferenceNode(child)) {
      if (!ts.isIdentifier(child.typeName))
        throw new Error(`qualified type name ${child.typeName.getText()}`);
      found.push(child.typeName.text);
    } else if (ts.isTypeQueryNode(child) || ts.isImportTypeNode(child)) {
      throw new Error(`the router's types use ${ts.SyntaxKind[child.kind]}, which this cannot print`);
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return found;
}

/**
 * The symbol behind each name the printer may write: aliases, interfaces and generic references,
 * found by walking the printed types. One name for two different types is an error, not a guess.
 */
class NamedTypes {
  private readonly byName = new Map<string, ts.Symbol>();
  private readonly seen = new Set<ts.Type>();

  constructor(
    private readonly checker: ts.TypeChecker,
    /** Types whose members are not walked (the default library's). */
    private readonly opaque: (symbol: ts.Symbol) => boolean,
  ) {}

  get(name: string): ts.Symbol {
    const symbol = this.byName.get(name);
    if (!symbol) throw new Error(`the router's types name ${name}, which was not found`);
    return symbol;
  }

  collect(type: ts.Type, body = false): void {
    if (this.seen.has(type) && !body) return;
    this.seen.add(type);
    if (type.aliasSymbol && !body) {
      this.add(type.aliasSymbol);
      for (const argument of type.aliasTypeArguments ?? []) this.collect(argument);
      return;
    }
    if (type.isUnionOrIntersection()) {
      for (const member of type.types) this.collect(member);
      return;
    }
    if (!(type.flags & ts.TypeFlags.Object)) return;
    const object = type as ts.ObjectType;
    if (object.objectFlags & ts.ObjectFlags.Reference) {
      const reference = object as ts.TypeReference;
      if (reference.target !== reference) this.add(reference.target.symbol);
      for (const argument of this.checker.getTypeArguments(reference)) this.collect(argument);
      if (reference.target !== reference) return;
    }
    if (object.objectFlags & ts.ObjectFlags.ClassOrInterface) {
      this.add(object.symbol);
      if (this.opaque(object.symbol)) return;
    }
    for (const member of this.checker.getPropertiesOfType(object)) {
      this.collect(this.checker.getTypeOfSymbol(member));
    }
    for (const index of this.checker.getIndexInfosOfType(object)) this.collect(index.type);
  }

  private add(symbol: ts.Symbol | undefined): void {
    if (!symbol) return;
    const known = this.byName.get(symbol.name);
    if (known && known !== symbol) throw new Error(`two different types are named ${symbol.name}`);
    this.byName.set(symbol.name, symbol);
  }
}

/** @trpc/server's public types, as resolved from each given file: symbol -> exported name. */
function trpcExports(program: ts.Program, checker: ts.TypeChecker, fromFiles: string[]) {
  const exports = new Map<ts.Symbol, string>();
  for (const from of fromFiles) {
    const resolved = ts.resolveModuleName(TRPC_SERVER, from, program.getCompilerOptions(), ts.sys);
    const file = resolved.resolvedModule && program.getSourceFile(resolved.resolvedModule.resolvedFileName);
    const module = file && checker.getSymbolAtLocation(file);
    if (!module) throw new Error(`${TRPC_SERVER} does not resolve from ${from}`);
    for (const exported of checker.getExportsOfModule(module)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      // The TRPC-prefixed name where there is one: it is the documented spelling.
      const current = exports.get(target);
      if (!current || (!current.startsWith('TRPC') && exported.name.startsWith('TRPC'))) {
        exports.set(target, exported.name);
      }
    }
  }
  return exports;
}

function isDefaultLibrary(program: ts.Program, symbol: ts.Symbol): boolean {
  const files = symbol.declarations?.map((declaration) => declaration.getSourceFile()) ?? [];
  return files.length > 0 && files.every((file) => program.isSourceFileDefaultLibrary(file));
}

/** The type a module exports under `name`, and the file that declares it. */
function exportedType(checker: ts.TypeChecker, program: ts.Program, file: string, name: string) {
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  const exported = module && checker.getExportsOfModule(module).find((symbol) => symbol.name === name);
  if (!exported) throw new Error(`${file} exports no ${name}`);
  const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const origin = target.declarations?.[0]?.getSourceFile().fileName;
  if (!origin) throw new Error(`${name} has no declaration`);
  return { type: checker.getDeclaredTypeOfSymbol(target), origin };
}

function property(checker: ts.TypeChecker, type: ts.Type, name: string): ts.Type {
  const symbol = checker.getPropertyOfType(type, name);
  if (!symbol) throw new Error(`the router type has no ${name}`);
  return checker.getTypeOfSymbol(symbol);
}
