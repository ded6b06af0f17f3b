/**
 * The lowest zod the package's range takes (`dependencies.zod`), as a user
 * on that zod meets the package: the installed package copied into a project
 * whose `zod` is that version (the dev dependency `zod-lowest`, an alias of
 * it), where the conformance command (which checks the cases with its zod
 * schemas) passes the cases of `todoList`, `subagent` and tools defined by a
 * JSON Schema, whose code loads zod, and the declarations compile with a tool defined by a schema of that zod.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../readme-blocks';
import { consumer } from './consumer';

const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
/**
 * The rules whose cases load zod at run time (`todoList` and its options, `subagent`, tools defined by a JSON Schema),
 * run on that zod (with every case, the check takes a minute longer).
 */
const zodRules = ['MW-168', 'MW-169', 'MW-185', ...Array.from({ length: 10 }, (_, index) => `MW-${330 + index}`)];
const zodCaseCount = readdirSync(join(root, 'spec', 'cases'))
  .filter((file) => file.endsWith('.json'))
  .map((file) => JSON.parse(readFileSync(join(root, 'spec', 'cases', file), 'utf8')) as { rules?: string[] })
  .filter((raw) => (raw.rules ?? []).some((rule) => zodRules.includes(rule))).length;

let project: string;
beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'staged-middleware-zod-lowest-'));
  const modules = join(project, 'node_modules');
  mkdirSync(modules);
  cpSync(join(consumer, 'node_modules', 'staged-middleware'), join(modules, 'staged-middleware'), { recursive: true });
  symlinkSync(join(root, 'node_modules', 'zod-lowest'), join(modules, 'zod'), 'junction');
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'zod-lowest-consumer', private: true, type: 'module' })}\n`);
});

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
});

describe('the installed package on the lowest zod of its range', () => {
  it('has that zod beside it', () => {
    const { version } = JSON.parse(readFileSync(join(project, 'node_modules', 'zod', 'package.json'), 'utf8')) as { version: string };
    expect(`^${version}`).toBe(dependencies.zod);
  });

  it('passes the conformance cases whose code loads zod', { timeout: 120_000 }, () => {
    const cli = join(project, 'node_modules', 'staged-middleware', 'dist', 'cli.js');
    const { status, stdout, stderr } = spawnSync(process.execPath, [cli, 'conformance', '--json', '--rules', zodRules.join(',')], {
      cwd: project,
      encoding: 'utf8',
    });
    const report = JSON.parse(stdout) as { summary: unknown; cases: { id: string; status: string }[] };
    expect({ status, stderr, summary: report.summary, notPassed: report.cases.filter((outcome) => outcome.status !== 'passed') }).toEqual({
      status: 0,
      stderr: '',
      summary: { passed: zodCaseCount, failed: 0, notClaimed: 0 },
      notPassed: [],
    });
  });

  it('compiles a tool defined by a schema of that zod, and the conformance runner', { timeout: 60_000 }, () => {
    writeFileSync(
      join(project, 'tool.ts'),
      `import { z } from 'zod';
import { defineTool } from 'staged-middleware/agent';
import { libraryTarget, runConformance } from 'staged-middleware/conformance';

export const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number().default(1) }),
  run: ({ a, b }) => String(a + b),
});
export const report = runConformance([], libraryTarget());
`,
    );
    const compilerOptions = {
      module: 'esnext',
      moduleResolution: 'bundler',
      target: 'es2022',
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      types: [],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['tool.ts'] }));
    let output = '';
    try {
      execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    }
    expect(output).toBe('');
  });
});
