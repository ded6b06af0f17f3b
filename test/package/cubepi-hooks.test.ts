/**
 * CubePi's hook details on the installed package, in both module formats
 * (`consumer/cubepi-hooks.cjs` and `.mjs`): a turn action's `response`, the
 * signal a decider receives, a hook's own model call under its caller, a hook
 * replaced by its name, and a tool result's `details` in the snapshot.
 */
import { describe, expect, it } from 'vitest';
import { runScript } from './consumer';

describe.each([
  ['ESM', 'cubepi-hooks.mjs'],
  ['CommonJS', 'cubepi-hooks.cjs'],
])('CubePi hooks on the %s build', (_format, script) => {
  it('replaces the response, passes the signal, counts the judge apart, replaces by name and keeps details', () => {
    expect(JSON.parse(runScript(script))).toEqual({
      message: { role: 'assistant', content: [{ type: 'text', text: 'replaced' }] },
      middlewareUsage: { judge: { inputTokens: 6, outputTokens: 2, totalTokens: 8 } },
      signals: [true, true],
      details: { rows: 2 },
      handlers: ['details'],
    });
  });
});
