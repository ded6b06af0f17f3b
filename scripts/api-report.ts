/**
 * `npm run api:report`: the public surface of each entry point, read from the
 * built type declarations (`dist/`, what users get), written to
 * `api/<entry>.api.md`: every exported name with its kind and its declared
 * signature, sorted by name. The packed-package tier (`test/package/`)
 * generates the reports again from the installed package and fails, showing
 * the difference, while they differ from the checked-in ones; so every change
 * to the public surface shows up in review as a change to `api/`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

/**
 * The package's entry points: the specifier users import, the name of its report, and the optional peer dependency
 * it loads, if any (an engine adapter: the packed-package tier loads it beside that peer).
 */
export const ENTRY_POINTS = [
  { specifier: 'staged-middleware', report: 'index' },
  { specifier: 'staged-middleware/agent', report: 'agent' },
  { specifier: 'staged-middleware/ai-sdk', report: 'ai-sdk' },
  { specifier: 'staged-middleware/mcp', report: 'mcp' },
  { specifier: 'staged-middleware/durable', report: 'durable' },
  { specifier: 'staged-middleware/durable/dbos', report: 'durable-dbos', peer: '@dbos-inc/dbos-sdk' },
  { specifier: 'staged-middleware/middleware', report: 'middleware' },
  { specifier: 'staged-middleware/testing', report: 'testing' },
  { specifier: 'staged-middleware/conformance', report: 'conformance' },
  { specifier: 'staged-middleware/durable/restate', report: 'durable-restate' },
] as const;

/** What an export is; the first four exist at run time. */
export type ExportKind = 'class' | 'function' | 'const' | 'enum' | 'interface' | 'type';

/** One exported name as the report lists it. */
export interface ApiExport {
  /** The name users import. */
  readonly name: string;
  /** What it is. */
  readonly kind: ExportKind;
  /** Its declarations as the `.d.ts` states them, without comments or private members. */
  readonly declaration: string;
}

const RUNTIME_KINDS: ReadonlySet<ExportKind> = new Set(['class', 'function', 'const', 'enum']);

/** Whether an export exists at run time (a class, a function, a constant) rather than only as a type. */
export function isValue(kind: ExportKind): boolean {
  return RUNTIME_KINDS.has(kind);
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

function kindOf(declaration: ts.Declaration): ExportKind {
  if (ts.isClassDeclaration(declaration)) return 'class';
  if (ts.isFunctionDeclaration(declaration)) return 'function';
  if (ts.isVariableDeclaration(declaration)) return 'const';
  if (ts.isEnumDeclaration(declaration)) return 'enum';
  if (ts.isInterfaceDeclaration(declaration)) return 'interface';
  return 'type';
}

/** A class as users see it: its private members (the `.d.ts` names them, without types) left out. */
function publicClass(declaration: ts.ClassDeclaration): ts.ClassDeclaration {
  const members = declaration.members.filter((member) => {
    const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
    const isPrivate = modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword);
    return !isPrivate && !(member.name !== undefined && ts.isPrivateIdentifier(member.name));
  });
  return ts.factory.updateClassDeclaration(
    declaration,
    declaration.modifiers,
    declaration.name,
    declaration.typeParameters,
    declaration.heritageClauses,
    members,
  );
}

function printed(declaration: ts.Declaration): string {
  const file = declaration.getSourceFile();
  if (ts.isVariableDeclaration(declaration)) return printer.printNode(ts.EmitHint.Unspecified, declaration.parent.parent, file);
  if (ts.isClassDeclaration(declaration)) return printer.printNode(ts.EmitHint.Unspecified, publicClass(declaration), file);
  return printer.printNode(ts.EmitHint.Unspecified, declaration, file);
}

/** What an entry point's declarations make public: its exports, sorted by name, and what they declare globally. */
export interface ApiSurface {
  /** The exports. */
  readonly exported: readonly ApiExport[];
  /** The global declarations (`declare global`) of the package's files the entry point loads, sorted. */
  readonly globals: readonly string[];
}

/** The surface of the declarations file `file`: an entry point's `index.d.ts` or `index.d.cts` in the build directory `dist`. */
export function readSurface(file: string, dist: string): ApiSurface {
  const program = ts.createProgram([file], {
    noEmit: true,
    skipLibCheck: true,
    types: [],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`${file} is not a module TypeScript can read.`);
  const inBuild = `${dist.replaceAll('\\', '/').replace(/\/$/, '')}/`;
  const globals = program
    .getSourceFiles()
    .filter((sourceFile) => sourceFile.fileName.startsWith(inBuild))
    .flatMap((sourceFile) =>
      sourceFile.statements.filter(
        (statement) => ts.isModuleDeclaration(statement) && (statement.flags & ts.NodeFlags.GlobalAugmentation) !== 0,
      ),
    )
    .map((statement) => printer.printNode(ts.EmitHint.Unspecified, statement, statement.getSourceFile()))
    .sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  const exported = checker
    .getExportsOfModule(module)
    .map((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const declarations = target.getDeclarations() ?? [];
      const first = declarations[0];
      if (first === undefined) throw new Error(`${symbol.name} of ${file} has no declaration.`);
      return { name: symbol.name, kind: kindOf(first), declaration: declarations.map(printed).join('\n') };
    })
    .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  return { exported, globals };
}

/** The report of one entry point. */
export function apiReport(specifier: string, { exported, globals }: ApiSurface): string {
  const values = exported.filter((item) => isValue(item.kind)).length;
  const lines = [
    `# \`${specifier}\``,
    '',
    '<!-- Generated by `npm run api:report` from the built type declarations. Do not edit: a test compares it with the installed package. -->',
    '',
    `${exported.length} exports: ${values} at run time, ${exported.length - values} types only.`,
    '',
    '| name | kind |',
    '| --- | --- |',
    ...exported.map((item) => `| \`${item.name}\` | ${item.kind} |`),
  ];
  for (const item of exported) lines.push('', `## \`${item.name}\``, '', '```ts', item.declaration, '```');
  if (globals.length > 0) lines.push('', '## Global declarations', '', '```ts', ...globals, '```');
  return `${lines.join('\n')}\n`;
}

/** The names a checked-in report lists, with their kinds (what the package's exports are checked against). */
export function listedExports(report: string): { readonly name: string; readonly kind: ExportKind }[] {
  return [...report.matchAll(/^\| `([^`]+)` \| (\w+) \|$/gm)].map((match) => ({ name: match[1] as string, kind: match[2] as ExportKind }));
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the reports are checked in. */
export const REPORTS = join(ROOT, 'api');

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  mkdirSync(REPORTS, { recursive: true });
  const dist = join(ROOT, 'dist');
  for (const { specifier, report } of ENTRY_POINTS) {
    const file = join(dist, specifier.slice('staged-middleware'.length), 'index.d.ts');
    writeFileSync(join(REPORTS, `${report}.api.md`), apiReport(specifier, readSurface(file, dist)));
  }
  process.stdout.write(`api/: ${ENTRY_POINTS.length} reports written from dist/.\n`);
}
