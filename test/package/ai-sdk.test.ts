/**
 * The tasks of a framework author on the Vercel AI SDK (`test/ai-sdk/ai-sdk-user.ts`)
 * and of a user of the AI SDK's own loop (`test/ai-sdk/ai-sdk-loop-user.ts`:
 * `streamText` with `languageModelMiddleware` and `wrapAiSdkTools`),
 * repeated from the installed package: an app beside the consumer project
 * that has `ai` 6 and `@ai-sdk/provider` (and OpenTelemetry's SDK), whose
 * code imports the package's entry points as a user writes them. The code
 * type-checks with no annotation on its inline terminals and no glue beyond
 * `fromAiSdk`, and runs the same from the ESM and the CommonJS build.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectedAiSdkLoopUser } from '../ai-sdk/ai-sdk-loop-user-expected';
import { expectedAiSdkUser } from '../ai-sdk/ai-sdk-user-expected';
import { root } from '../readme-blocks';
import { consumer } from './consumer';
import { transpile } from './transpile';

/** The app's directory: `staged-middleware` and `zod` resolve from the consumer project around it. */
const app = join(consumer, 'ai-sdk-app');

/** The packages the app installs itself, linked from the repository's `node_modules` (their pinned versions). */
const appPackages = ['ai', '@ai-sdk/provider', '@opentelemetry/api', '@opentelemetry/sdk-trace-base'];

/** The entry points of the package, by the source path the scenario imports them from. */
const entryPoints: Record<string, string> = {
  '../../src/core/index': 'staged-middleware',
  '../../src/agent/index': 'staged-middleware/agent',
  '../../src/ai-sdk/index': 'staged-middleware/ai-sdk',
  '../../src/middleware/index': 'staged-middleware/middleware',
};

/** A scenario of `test/ai-sdk/` as a user writes it: every import of the source mapped to the package's entry point. */
function userSource(file: string): string {
  let source = readFileSync(join(root, 'test', 'ai-sdk', file), 'utf8');
  for (const [path, entry] of Object.entries(entryPoints)) source = source.replaceAll(`'${path}'`, `'${entry}'`);
  if (source.includes('../../src')) throw new Error(`${file} imports a source file that is no entry point of the package`);
  return source;
}

/** Writes a scenario into the app as `<name>.mts`, and transpiled, calling `run` and printing its JSON, as `<name>.mjs` and `<name>.cjs`. */
function writeScenario(name: string, file: string, run: string): void {
  const source = userSource(file);
  const call = `\nvoid ${run}().then((value) => console.log(JSON.stringify(value)));\n`;
  writeFileSync(join(app, `${name}.mts`), source);
  writeFileSync(join(app, `${name}.mjs`), transpile(source + call, 'esm'));
  writeFileSync(join(app, `${name}.cjs`), transpile(source + call, 'cjs'));
}

/** Runs `node <script>` in the app and returns what it printed. */
function runInApp(script: string): unknown {
  return JSON.parse(execFileSync(process.execPath, [script], { cwd: app, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
}

describe('the installed package on the Vercel AI SDK', () => {
  beforeAll(() => {
    mkdirSync(join(app, 'node_modules', '@ai-sdk'), { recursive: true });
    mkdirSync(join(app, 'node_modules', '@opentelemetry'), { recursive: true });
    for (const name of appPackages) symlinkSync(join(root, 'node_modules', name), join(app, 'node_modules', name), 'junction');
    writeScenario('scenario', 'ai-sdk-user.ts', 'aiSdkUser');
    writeScenario('loop-scenario', 'ai-sdk-loop-user.ts', 'aiSdkLoopUser');
  });

  it('type-checks the user code as written, inline terminals unannotated', () => {
    const tsconfig = {
      compilerOptions: {
        module: 'node16',
        moduleResolution: 'node16',
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      files: ['scenario.mts', 'loop-scenario.mts'],
    };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    let output = '';
    try {
      execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    }
    expect(output).toBe('');
  });

  it.each(['scenario.mjs', 'scenario.cjs'])('runs the tasks with retry, tracing, a guardrail and a redaction (%s)', (script) => {
    expect(runInApp(script)).toEqual(expectedAiSdkUser);
  });

  it.each(['loop-scenario.mjs', 'loop-scenario.cjs'])(
    "runs streamText with languageModelMiddleware and wrapAiSdkTools, the AI SDK's own loop kept (%s)",
    (script) => {
      expect(runInApp(script)).toEqual(expectedAiSdkLoopUser);
    },
  );
});
