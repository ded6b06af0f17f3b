/**
 * The public surface of the installed package: the names each entry point
 * exports at run time and in its type declarations, in both module formats,
 * equal to the checked-in `exports.json`, so a change to the surface shows
 * up in review. `values` are the run-time exports; `types` the names only
 * the declarations export (interfaces and type aliases).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { consumer, runScript } from './consumer';

type Surface = Record<string, { values: string[]; types: string[] }>;

const checkedIn = JSON.parse(readFileSync(join(import.meta.dirname, 'exports.json'), 'utf8')) as Surface;
const entryPoints = ['.', './agent', './middleware', './testing', './conformance'];

/** The names the type declarations of each entry point export, resolved as a TypeScript consumer in that module format resolves them. */
function declaredNames(format: 'esm' | 'cjs'): Record<string, string[]> {
  const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, skipLibCheck: true, types: [] };
  const importer = join(consumer, format === 'esm' ? 'consumer.mts' : 'consumer.cts');
  const mode = format === 'esm' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS;
  const files = entryPoints.map((entry) => {
    const specifier = entry === '.' ? 'staged-middleware' : `staged-middleware${entry.slice(1)}`;
    const resolved = ts.resolveModuleName(specifier, importer, options, ts.sys, undefined, undefined, mode).resolvedModule;
    if (resolved === undefined) throw new Error(`TypeScript (${format}) cannot resolve ${specifier} from the consumer project`);
    return resolved.resolvedFileName;
  });
  const program = ts.createProgram(files, options);
  const checker = program.getTypeChecker();
  return Object.fromEntries(
    entryPoints.map((entry, index) => {
      const source = program.getSourceFile(files[index] as string);
      const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
      return [entry, module === undefined ? [] : checker.getExportsOfModule(module).map((symbol) => symbol.name).sort()];
    }),
  );
}

/** The surface of one format: run-time exports from the consumer script, the rest from the declarations. */
function surface(format: 'esm' | 'cjs'): { surface: Surface; undeclared: Record<string, string[]> } {
  const observed = JSON.parse(runScript(format === 'esm' ? 'esm.mjs' : 'cjs.cjs')) as { exports: Record<string, string[]> };
  const declared = declaredNames(format);
  const result: Surface = {};
  const undeclared: Record<string, string[]> = {};
  for (const entry of entryPoints) {
    const values = observed.exports[entry] ?? [];
    const names = declared[entry] ?? [];
    result[entry] = { values, types: names.filter((name) => !values.includes(name)) };
    undeclared[entry] = values.filter((name) => !names.includes(name));
  }
  return { surface: result, undeclared };
}

describe('entry points of the installed package', () => {
  let formats: Record<'esm' | 'cjs', ReturnType<typeof surface>>;
  beforeAll(() => {
    formats = { esm: surface('esm'), cjs: surface('cjs') };
  });

  it.each(['esm', 'cjs'] as const)('export exactly the names of exports.json in the %s build', (format) => {
    expect(formats[format].surface).toEqual(checkedIn);
  });

  it('export the same names from both builds', () => {
    expect(formats.cjs.surface).toEqual(formats.esm.surface);
  });

  it.each(['esm', 'cjs'] as const)('declare a type for every run-time export in the %s build', (format) => {
    expect(formats[format].undeclared).toEqual(Object.fromEntries(entryPoints.map((entry) => [entry, []])));
  });
});
