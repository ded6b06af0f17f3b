/**
 * The public surface of the installed package is the one checked in under
 * `api/`: the report of each entry point, generated from the installed
 * package's type declarations (ESM and CommonJS), equals
 * `api/<entry>.api.md`, and each entry point's run-time exports are exactly
 * the names its report lists as existing at run time. After a deliberate
 * change of the surface, `npm run api:report` writes the new reports.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiReport, ENTRY_POINTS, isValue, listedExports, readSurface, REPORTS } from '../../scripts/api-report';
import { consumer, runScript } from './consumer';

type Format = 'esm' | 'cjs';

/** The declarations file TypeScript resolves `specifier` to from the consumer project, in one module format. */
function declarations(specifier: string, format: Format): string {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    types: [],
  };
  const importer = join(consumer, format === 'esm' ? 'consumer.mts' : 'consumer.cts');
  const mode = format === 'esm' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS;
  const resolved = ts.resolveModuleName(specifier, importer, options, ts.sys, undefined, undefined, mode).resolvedModule;
  if (resolved === undefined) throw new Error(`TypeScript (${format}) cannot resolve ${specifier} from the consumer project`);
  return resolved.resolvedFileName;
}

/** The installed package's build directory. */
function installedDist(): string {
  return dirname(declarations('staged-middleware', 'esm'));
}

const checkedIn = Object.fromEntries(ENTRY_POINTS.map(({ report }) => [report, readFileSync(join(REPORTS, `${report}.api.md`), 'utf8')]));

describe('entry points of the installed package', () => {
  describe.each(['esm', 'cjs'] as const)('in the %s build', (format) => {
    it.each(ENTRY_POINTS.map((entry) => [entry.specifier, entry] as const))(
      '%s has the surface of its checked-in API report',
      (_specifier, { specifier, report }) => {
        const generated = apiReport(specifier, readSurface(declarations(specifier, format), installedDist()));
        expect(
          generated,
          `the public surface of ${specifier} differs from api/${report}.api.md: if the change is meant, run npm run api:report`,
        ).toBe(checkedIn[report]);
      },
    );
  });

  describe.each([
    ['esm', 'esm.mjs'],
    ['cjs', 'cjs.cjs'],
  ] as const)('at run time, in the %s build', (_format, script) => {
    let observed: Record<string, string[]>;
    beforeAll(() => {
      observed = (JSON.parse(runScript(script)) as { exports: Record<string, string[]> }).exports;
    });

    it('export exactly the names their API reports list as values', () => {
      // An engine adapter loads its engine, which the consumer project does not have: durable-dbos.test.ts loads it beside DBOS.
      const expected = Object.fromEntries(
        ENTRY_POINTS.filter((entry) => !('peer' in entry)).map(({ specifier, report }) => [
          `.${specifier.slice('staged-middleware'.length)}`,
          listedExports(checkedIn[report] as string)
            .filter((item) => isValue(item.kind))
            .map((item) => item.name)
            .sort(),
        ]),
      );
      expect(observed).toEqual(expected);
    });
  });
});
