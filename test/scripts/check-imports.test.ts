/**
 * The layer and cycle check `npm run lint` runs (scripts/check-imports.mjs), run as its own process on trees written
 * to a scratch directory: what it accepts, what it refuses, and what it prints.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const script = join(import.meta.dirname, '..', '..', 'scripts', 'check-imports.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'check-imports-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A tree with the given files (path → source) in a directory of its own. */
function tree(name: string, files: Record<string, string>): string {
  const root = join(scratch, name);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return root;
}

/** Runs the check on `root`: its exit status and what it printed. */
function check(root: string): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [script, root], { encoding: 'utf8' });
  return { status, stdout, stderr };
}

/** A core with its two doors and one file of its own, a middleware and an agent that use them as allowed. */
const layered = {
  'src/util/is-object.ts': 'export const isObject = (value: unknown): boolean => typeof value === "object";\n',
  'src/core/index.ts': "export { createStage } from './stage';\n",
  'src/core/internal.ts': "export { fast } from './fast';\n",
  'src/core/stage.ts': "import { isObject } from '../util/is-object';\nexport const createStage = (): boolean => isObject({});\n",
  'src/core/fast.ts': 'export const fast = 1;\n',
  'src/middleware/retry.ts': "import { createStage } from '../core/index';\nexport const retry = createStage;\n",
  'src/agent/agent.ts':
    "import { retry } from '../middleware/retry';\nimport { fast } from '../core/internal';\nexport const agent = [retry, fast];\n",
  'conformance/runner.ts': "import { agent } from '../src/agent/agent';\nexport const runner = agent;\n",
};

describe('check-imports', () => {
  it("passes a tree whose imports go down the layers and through the core's doors, printing nothing", () => {
    expect(check(tree('layered', layered))).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('fails on an import of a layer above, naming both layers', () => {
    const root = tree('back-import', {
      ...layered,
      'src/middleware/tracing.ts': "import { agent } from '../agent/agent';\nexport const tracing = agent;\n",
    });
    expect(check(root)).toEqual({
      status: 1,
      stdout: '',
      stderr:
        '1 import problem(s) (see CONTRIBUTING.md, Layers):\n  src/middleware/tracing.ts imports src/agent/agent.ts: the middleware layer may not import the agent layer\n',
    });
  });

  it('fails on a type-only import of a layer above, too', () => {
    const root = tree('type-back-import', {
      ...layered,
      'src/core/types.ts': "import type { agent } from '../agent/agent';\nexport type Agent = typeof agent;\n",
    });
    expect(check(root).stderr).toContain('src/core/types.ts imports src/agent/agent.ts: the core layer may not import the agent layer\n');
  });

  it('fails on an import between sibling layers', () => {
    const root = tree('siblings', {
      ...layered,
      'src/ai-sdk/adapter.ts': 'export const adapter = 1;\n',
      'src/testing/model.ts': "import { adapter } from '../ai-sdk/adapter';\nexport const model = adapter;\n",
    });
    expect(check(root).stderr).toContain(
      'src/testing/model.ts imports src/ai-sdk/adapter.ts: the testing layer may not import the ai-sdk layer\n',
    );
  });

  it('fails on an import of an engine adapter from the agent kit, which the adapter itself may import', () => {
    const root = tree('engine-adapter', {
      ...layered,
      'src/durable-restate/runner.ts': "import { agent } from '../agent/agent';\nexport const runner = agent;\n",
      'src/agent/durable.ts': "import { runner } from '../durable-restate/runner';\nexport const durable = runner;\n",
    });
    expect(check(root).stderr).toEqual(
      '1 import problem(s) (see CONTRIBUTING.md, Layers):\n  src/agent/durable.ts imports src/durable-restate/runner.ts: the agent layer may not import the durable-restate layer\n',
    );
  });

  it('fails on an import of an engine adapter from the durable layer it builds on', () => {
    const root = tree('engine-adapter-dbos', {
      ...layered,
      'src/durable-dbos/runner.ts': "import { agent } from '../agent/agent';\nexport const runner = agent;\n",
      'src/durable/steps.ts': "import { runner } from '../durable-dbos/runner';\nexport const steps = runner;\n",
    });
    expect(check(root).stderr).toContain(
      'src/durable/steps.ts imports src/durable-dbos/runner.ts: the durable layer may not import the durable-dbos layer\n',
    );
  });

  it('fails on an import of the AI SDK adapter from the durable layer, its sibling', () => {
    const root = tree('durable-sibling', {
      ...layered,
      'src/ai-sdk/adapter.ts': 'export const adapter = 1;\n',
      'src/durable/steps.ts':
        "import { agent } from '../agent/agent';\nimport { adapter } from '../ai-sdk/adapter';\nexport const steps = [agent, adapter];\n",
    });
    expect(check(root)).toEqual({
      status: 1,
      stdout: '',
      stderr:
        '1 import problem(s) (see CONTRIBUTING.md, Layers):\n  src/durable/steps.ts imports src/ai-sdk/adapter.ts: the durable layer may not import the ai-sdk layer\n',
    });
  });

  it('fails on an import of the AI SDK adapter from the MCP layer, its sibling', () => {
    const root = tree('mcp-sibling', {
      ...layered,
      'src/ai-sdk/adapter.ts': 'export const adapter = 1;\n',
      'src/mcp/tools.ts':
        "import { agent } from '../agent/agent';\nimport { adapter } from '../ai-sdk/adapter';\nexport const tools = [agent, adapter];\n",
    });
    expect(check(root)).toEqual({
      status: 1,
      stdout: '',
      stderr:
        '1 import problem(s) (see CONTRIBUTING.md, Layers):\n  src/mcp/tools.ts imports src/ai-sdk/adapter.ts: the mcp layer may not import the ai-sdk layer\n',
    });
  });

  it('passes a conformance file importing the MCP layer, which sits below it', () => {
    const root = tree('mcp-below-conformance', {
      ...layered,
      'src/mcp/tools.ts': "import { agent } from '../agent/agent';\nexport const tools = agent;\n",
      'conformance/mcp.ts': "import { tools } from '../src/mcp/tools';\nexport const mcp = tools;\n",
    });
    expect(check(root)).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('passes a conformance file importing the durable layer, which sits below it', () => {
    const root = tree('durable-below-conformance', {
      ...layered,
      'src/durable/steps.ts': "import { agent } from '../agent/agent';\nexport const steps = agent;\n",
      'conformance/durable.ts': "import { steps } from '../src/durable/steps';\nexport const durable = steps;\n",
    });
    expect(check(root)).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('fails on an import of a core file other than its two doors from above the core', () => {
    const root = tree('core-internals', {
      ...layered,
      'src/agent/loop.ts': "import { fast } from '../core/fast';\nexport const loop = fast;\n",
    });
    expect(check(root).stderr).toContain(
      'src/agent/loop.ts imports src/core/fast.ts: above the core, import src/core/index.ts or src/core/internal.ts\n',
    );
  });

  it('fails on an import cycle, types included, naming every file in it', () => {
    const root = tree('cycle', {
      ...layered,
      'src/core/a.ts': "import type { B } from './b';\nexport interface A { b?: B }\n",
      'src/core/b.ts': "import type { C } from './c';\nexport interface B { c?: C }\n",
      'src/core/c.ts': "import type { A } from './a';\nexport interface C { a?: A }\n",
    });
    expect(check(root)).toEqual({
      status: 1,
      stdout: '',
      stderr: '1 import problem(s) (see CONTRIBUTING.md, Layers):\n  import cycle: src/core/a.ts, src/core/b.ts, src/core/c.ts\n',
    });
  });

  it('passes the repository as it is', () => {
    expect(check(join(import.meta.dirname, '..', '..'))).toEqual({ status: 0, stdout: '', stderr: '' });
  });
});
