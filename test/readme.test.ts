import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blocks, quickStart, readmeSection, root } from './readme-blocks';

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

  describe('Embedding stages in your own loop', () => {
    it('is the tested examples/own-loop.ts', () => {
      const [code] = blocks('Embedding stages in your own loop');
      const example = readFileSync(join(root, 'examples/own-loop.ts'), 'utf8');
      const body = example
        .slice(example.indexOf('import '))
        .replace("from '../src/core/index'", "from 'staged-middleware'")
        .replace("from '../src/agent/index'", "from 'staged-middleware/agent'");
      expect(body).toBe(code?.body);
      expect(body.split('\n').length).toBeLessThan(90);
    });
  });

  describe("The registry inside the AI SDK's own loop", () => {
    it('is the type-checked and tested examples/ai-sdk-stream-text.ts', () => {
      // The subsection's block is the second of its section.
      const [, code] = blocks('Running on the Vercel AI SDK').filter((block) => block.lang === 'ts');
      const example = readFileSync(join(root, 'examples/ai-sdk-stream-text.ts'), 'utf8');
      const body = example
        .slice(example.indexOf('import '))
        .replace("from '../src/core/index'", "from 'staged-middleware'")
        .replace("from '../src/agent/index'", "from 'staged-middleware/agent'")
        .replace("from '../src/ai-sdk/index'", "from 'staged-middleware/ai-sdk'")
        .replace("from '../src/middleware/index'", "from 'staged-middleware/middleware'");
      expect(code?.body).toBe(body);
    });
  });

  describe('Running on the Vercel AI SDK', () => {
    it('is the type-checked and tested examples/ai-sdk.ts', () => {
      const [code] = blocks('Running on the Vercel AI SDK').filter((block) => block.lang === 'ts');
      const example = readFileSync(join(root, 'examples/ai-sdk.ts'), 'utf8');
      const body = example
        .slice(example.indexOf('import '))
        .replace("from '../src/core/index'", "from 'staged-middleware'")
        .replace("from '../src/agent/index'", "from 'staged-middleware/agent'")
        .replace("from '../src/ai-sdk/index'", "from 'staged-middleware/ai-sdk'")
        .replace("from '../src/middleware/index'", "from 'staged-middleware/middleware'");
      expect(code?.body).toBe(body);
    });
  });

  describe('Entry points', () => {
    it("lists every entry point of the package's exports, once", () => {
      const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
      const listed = readmeSection('Entry points')
        .split('\n')
        .map((line) => /^\| `(staged-middleware[^`]*)` \|/.exec(line)?.[1])
        .filter((name): name is string => name !== undefined);
      const published = Object.keys(exports)
        .filter((key) => key !== './package.json')
        .map((key) => (key === '.' ? 'staged-middleware' : `staged-middleware/${key.slice(2)}`));
      expect([...listed].sort()).toEqual([...published].sort());
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
