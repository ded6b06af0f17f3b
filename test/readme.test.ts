import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorCodesTable, withErrorCodesTable } from '../scripts/docs-errors';
import { blocks, quickStart, readme, readmeSection, root } from './readme-blocks';

const scratch = mkdtempSync(join(tmpdir(), 'readme-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function runTypeScript(file: string): string {
  return execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
}

// Each test starts Node.js processes (tsx compiling the sources), which take seconds on a loaded machine.
describe('README', { timeout: 60_000 }, () => {
  describe('Quick start', () => {
    it('runs as written and prints what the README says', () => {
      const { code, printed } = quickStart();
      const file = join(scratch, 'quick-start.mts');
      writeFileSync(file, code.replace("from 'staged-middleware'", `from ${JSON.stringify(join(root, 'src/core/index.ts'))}`));
      expect(runTypeScript(file)).toBe(printed);
    });

    it('is the type-checked examples/quick-start.ts', () => {
      const [code] = blocks('Quick start');
      const example = readFileSync(join(root, 'examples/quick-start.ts'), 'utf8');
      expect(example.replace("from '../src/core/index'", "from 'staged-middleware'")).toBe(code?.body);
    });
  });

  describe('Controlling order', () => {
    it('shows the current output of examples/controlling-order.ts', () => {
      const printed = blocks('Controlling order').find((block) => block.lang === 'text');
      expect(runTypeScript(join(root, 'examples/controlling-order.ts'))).toBe(printed?.body);
    });
  });

  describe('The demo', () => {
    it('prints the timeline the README shows (the date aside)', () => {
      const [, printed] = blocks('The demo');
      const dateless = (text: string): string => text.replace(/Today's date is \d{4}-\d{2}-\d{2}/g, "Today's date is <date>");
      expect(dateless(runTypeScript(join(root, 'examples/demo.ts')))).toBe(dateless(printed?.body ?? ''));
    });

    it('prints the human-in-the-loop run across two processes the README shows with --hitl', () => {
      const shown = blocks('The demo').filter((block) => block.lang === 'text')[2];
      const output = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'examples/demo.ts'), '--hitl'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(output).toBe(shown?.body);
    });

    it('prints the compaction and the sub-agent the README shows with --long', () => {
      const shown = blocks('The demo').filter((block) => block.lang === 'text')[3];
      const output = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'examples/demo.ts'), '--long'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(output).toBe(shown?.body);
    });

    it('prints the resolved chains the README shows with --explain', () => {
      const explained = blocks('The demo').filter((block) => block.lang === 'text')[1];
      const output = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'examples/demo.ts'), '--explain'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(output).toBe(explained?.body);
    });
  });

  describe('Embedding stages in your own loop', () => {
    it('is the tested examples/own-loop.ts', () => {
      const [code] = blocks('Embedding stages in your own loop');
      const example = readFileSync(join(root, 'examples/own-loop.ts'), 'utf8');
      const body = example
        .slice(example.indexOf('import '))
        .replace("from '../src/core/index'", "from 'staged-middleware'")
        .replace("from '../src/agent/index'", "from 'staged-middleware/agent'");
      expect(body).toBe(code?.body);
      expect(body.split('\n').length).toBeLessThan(80);
    });
  });

  describe('Shared stores for many processes', () => {
    it('is the type-checked examples/shared-stores.ts, which npm run test:integration runs against Redis', () => {
      const section = readmeSection('Built-in middleware');
      const start = section.indexOf('\n### Shared stores for many processes\n');
      const [, code] = /```ts\n([\s\S]*?)```/.exec(section.slice(start)) ?? [];
      const example = readFileSync(join(root, 'examples/shared-stores.ts'), 'utf8');
      const body = example
        .slice(example.indexOf('import '))
        .replace("from '../src/core/index'", "from 'staged-middleware'")
        .replace("from '../src/agent/index'", "from 'staged-middleware/agent'")
        .replace("from '../src/middleware/index'", "from 'staged-middleware/middleware'");
      expect([start > 0, body]).toEqual([true, code]);
    });
  });

  describe('Tracing with OpenTelemetry', () => {
    const section = readmeSection('Built-in middleware');
    const start = section.indexOf('\n### Tracing with OpenTelemetry\n');
    const [, code, tree] = /```ts\n([\s\S]*?)```[\s\S]*?```text\n([\s\S]*?)```/.exec(section.slice(start)) ?? [];

    it('is the type-checked examples/tracing.ts', () => {
      const example = readFileSync(join(root, 'examples/tracing.ts'), 'utf8');
      const body = example
        .slice(example.indexOf('import '))
        .replace("from '../src/core/index'", "from 'staged-middleware'")
        .replace("from '../src/agent/index'", "from 'staged-middleware/agent'")
        .replace("from '../src/middleware/index'", "from 'staged-middleware/middleware'");
      expect([start > 0, body]).toEqual([true, code]);
    });

    it('shows the span tree examples/tracing-tree.ts prints', () => {
      expect(runTypeScript(join(root, 'examples/tracing-tree.ts'))).toBe(tree);
    });
  });

  describe.each([
    ['Turn control', 'examples/turn-control.ts'],
    ['Errors as answers', 'examples/errors-as-answers.ts'],
    ['Asking a human, and tools the caller runs', 'examples/agent-interrupts.ts'],
    ['Durable runs', 'examples/durable-runs.ts'],
    ['What handlers see of the agent', 'examples/agent-view.ts'],
    ['Running on the Vercel AI SDK', 'examples/ai-sdk.ts'],
    ['Agent middleware', 'examples/agent-middleware.ts'],
  ])('%s', (section, file) => {
    it(`is the type-checked and tested ${file}`, () => {
      const [code] = blocks(section).filter((block) => block.lang === 'ts');
      const example = readFileSync(join(root, file), 'utf8');
      const body = example
        .slice(example.indexOf('import '))
        .replace("from '../src/core/index'", "from 'staged-middleware'")
        .replace("from '../src/agent/index'", "from 'staged-middleware/agent'")
        .replace("from '../src/ai-sdk/index'", "from 'staged-middleware/ai-sdk'")
        .replace("from '../src/middleware/index'", "from 'staged-middleware/middleware'");
      expect(code?.body).toBe(body);
    });
  });

  describe('Testing middleware', () => {
    it('is the tested example in test/testing/readme-example.test.ts', () => {
      const [code] = blocks('Testing middleware');
      const example = readFileSync(join(root, 'test/testing/readme-example.test.ts'), 'utf8');
      const body = example
        .slice(example.indexOf('import { describe'))
        .replace("from '../../src/core/index'", "from 'staged-middleware'")
        .replace("from '../../src/testing/index'", "from 'staged-middleware/testing'");
      expect(body).toBe(code?.body);
    });
  });

  describe('Performance', () => {
    it('shows every figure of bench/results.json with its measured ratio and verdict', () => {
      const results = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) as {
        figures: Record<string, { ratio: number; detail: { pass: boolean } }>;
      };
      const start = readme.indexOf('\n## Performance\n');
      const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
      const rows = Object.entries(results.figures).map(([name, figure]) => {
        const row = section.split('\n').find((line) => line.startsWith(`| \`${name}\` |`)) ?? '';
        const shown = figure.ratio >= 0.01 ? figure.ratio.toFixed(3) : String(figure.ratio);
        return { name, hasRatio: row.includes(`| ${shown}`), verdict: row.trim().endsWith(figure.detail.pass ? '| yes |' : '| no |') };
      });
      expect(rows).toEqual(Object.keys(results.figures).map((name) => ({ name, hasRatio: true, verdict: true })));
    });
  });

  describe('Error codes', () => {
    it('is the table npm run docs:errors generates from the error tables', () => {
      const spec = readFileSync(join(root, 'spec/SPEC.md'), 'utf8');
      expect(withErrorCodesTable(readme, errorCodesTable(spec))).toBe(readme);
    });
  });

  describe('Model-state isolation', () => {
    it('runs the snippet and writes the state back', () => {
      const [snippet] = blocks('Model-state isolation');
      const file = join(scratch, 'state.mts');
      const program = `${quickStart().code.split('for await')[0]}\n${snippet?.body ?? ''}\nconsole.log(JSON.stringify(modelState));\n`;
      writeFileSync(file, program.replace("from 'staged-middleware'", `from ${JSON.stringify(join(root, 'src/core/index.ts'))}`));
      expect(runTypeScript(file).trim().split('\n').at(-1)).toBe('{"turns":1}');
    });
  });
});
