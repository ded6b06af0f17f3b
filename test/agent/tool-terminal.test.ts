/**
 * The ExecuteToolStage terminal as a function of its own: a call on a signal
 * already aborted (MW-115), and the JSON content of a value (toResultContent).
 */
import { describe, expect, it } from 'vitest';
import { type ExecuteToolContext, toolTerminal, toResultContent, type Tool } from '../../src/agent/index';
import type { TerminalCall } from '../../src/core/index';

describe('toolTerminal', () => {
  describe('with a signal already aborted', () => {
    it("throws the signal's reason without calling the tool", async () => {
      const inputs: unknown[] = [];
      const tool: Tool = {
        spec: { name: 't', description: '', inputSchema: {} },
        run: (input) => {
          inputs.push(input);
          return 'ran';
        },
      };
      const reason = new Error('stopped');
      const events = toolTerminal(
        { tool, toolUse: { toolUseId: 'u1', name: 't', input: { q: 1 } }, invocationState: {} } as unknown as ExecuteToolContext,
        { signal: AbortSignal.abort(reason) } as TerminalCall<unknown>,
      );
      const outcome = await events.next().then(
        () => 'an event',
        (error: unknown) => error,
      );
      expect([outcome === reason, inputs]).toEqual([true, []]);
    });
  });
});

describe('toResultContent', () => {
  it('converts a value that shares its parts over 60 levels (2^60 paths) by its distinct parts', () => {
    let shared: unknown[] = [1];
    for (let level = 0; level < 60; level++) shared = [shared, shared];
    const [block] = toResultContent(shared) as unknown as [{ json: unknown[] }];
    expect([Object.isFrozen(block.json), block.json[0] === block.json[1]]).toEqual([true, true]);
  });

  it('throws ERR_INVALID_OPTIONS naming the problem for a value that is not JSON', () => {
    const value: Record<string, unknown> = {};
    value.self = value;
    expect(() => toResultContent(value)).toThrow(
      expect.objectContaining({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'executeTool',
        message: '[ERR_INVALID_OPTIONS] toResultContent(value): the value is not JSON: value.self refers back to value (a cycle).',
      }),
    );
  });
});
