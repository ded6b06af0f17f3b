/**
 * `MiddlewareError.code` in the installed package's type declarations: it
 * holds the codes of every entry point a program imports (each entry point
 * adds its own), so a program using the agent kit compares a code with
 * `'ERR_AGENT_BUSY'`, and a program using only the core cannot.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { consumer } from './consumer';

const scratch = mkdtempSync(join(consumer, 'error-codes-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** The type errors of one consumer module, by code, in the given module format. */
function typeErrors(name: string, source: string, format: 'esm' | 'cjs'): number[] {
  const file = join(scratch, `${name}.${format === 'esm' ? 'mts' : 'cts'}`);
  writeFileSync(file, source);
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    strict: true,
    skipLibCheck: false,
    types: [],
  };
  const program = ts.createProgram([file], options);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => diagnostic.code);
}

const compare = "export const busy = (error: MiddlewareError): boolean => error.code === 'ERR_AGENT_BUSY';\n";

describe('MiddlewareError.code of the installed package', () => {
  it.each(['esm', 'cjs'] as const)('compares with an agent code in a program that imports the agent kit (%s)', (format) => {
    const source = `import type { MiddlewareError } from 'staged-middleware';\nimport type { Agent } from 'staged-middleware/agent';\nexport type Used = Agent;\n${compare}`;
    expect(typeErrors(`with-agent-${format}`, source, format)).toEqual([]);
  });

  it.each(['esm', 'cjs'] as const)('does not compare with an agent code in a program that imports only the core (%s)', (format) => {
    const source = `import type { MiddlewareError } from 'staged-middleware';\n${compare}`;
    // TS2367: the comparison has no overlap, 'ERR_AGENT_BUSY' being no code of the core.
    expect(typeErrors(`core-only-${format}`, source, format)).toEqual([2367]);
  });
});
