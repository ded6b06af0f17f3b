import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type WrapHandler } from '../../src/core/index';
import { ModelStage as Stage, echo as terminal, type PromptContext as Context } from '../fixtures';

function calling(times: number): WrapHandler<Context, string> {
  return async function* caller(_context, next) {
    if (times === 0) {
      yield 'own answer';
      return;
    }
    for (let call = 0; call < times; call++) yield* next();
  };
}

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    return { value: await promise };
  } catch (error) {
    return error;
  }
}

describe('AddOptions.next', () => {
  describe.each([
    ['many', [0, 1, 3]],
    ['at-most-once', [0, 1]],
    ['once', [1]],
  ] as const)("policy '%s'", (policy, allowed) => {
    it.each(allowed)('allows %i call(s) of next()', async (times) => {
      const registry = new MiddlewareRegistry();
      let terminalCalls = 0;
      registry.add(Stage.Wrap, calling(times), { next: policy });
      const result = await registry.run(Stage, { prompt: 'x' }, async function* counted(context) {
        terminalCalls++;
        yield context.prompt;
      });
      expect({ result, terminalCalls }).toEqual({ result: times === 0 ? 'own answer' : 'x', terminalCalls: times });
    });
  });

  it.each(['once', 'at-most-once'] as const)(
    "rejects a second call under '%s' with ERR_NEXT_POLICY naming stage, handler and count",
    async (policy) => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, calling(2), { next: policy, name: 'twice' });
      const error = (await outcome(registry.run(Stage, { prompt: 'x' }, terminal))) as MiddlewareError;
      expect(MiddlewareError.isInstance(error)).toBe(true);
      expect({ code: error.code, stage: error.stage, phase: error.phase, handler: error.handler }).toEqual({
        code: 'ERR_NEXT_POLICY',
        stage: 'model',
        phase: 'wrap',
        handler: 'twice',
      });
      const expected = policy === 'once' ? 'exactly once' : 'at most once';
      expect(error.message).toBe(
        `[ERR_NEXT_POLICY] Wrap handler "twice" of stage "model" is registered with next: '${policy}' and must call next() ${expected}, but called it 2 times. Change the handler, or register it with next: 'many'.`,
      );
    },
  );

  it("rejects a handler under 'once' that finishes without calling next()", async () => {
    const registry = new MiddlewareRegistry();
    registry.add(Stage.Wrap, calling(0), { next: 'once', name: 'lazy' });
    const error = (await outcome(registry.run(Stage, { prompt: 'x' }, terminal))) as MiddlewareError;
    expect({ code: error.code, stage: error.stage, phase: error.phase, handler: error.handler }).toEqual({
      code: 'ERR_NEXT_POLICY',
      stage: 'model',
      phase: 'wrap',
      handler: 'lazy',
    });
    expect(error.message).toContain('must call next() exactly once, but called it 0 times.');
  });

  it('counts calls per activation, so an outer retry may enter a limited handler again', async () => {
    const registry = new MiddlewareRegistry();
    registry.add(Stage.Wrap, calling(3), { name: 'retry' });
    registry.add(Stage.Wrap, calling(1), { next: 'once', name: 'single' });
    let terminalCalls = 0;
    await registry.run(Stage, { prompt: 'x' }, async function* counted(context) {
      terminalCalls++;
      yield context.prompt;
    });
    expect(terminalCalls).toBe(3);
  });

  it('lets the handler catch the policy error and recover', async () => {
    const registry = new MiddlewareRegistry();
    registry.add(
      Stage.Wrap,
      async function* careful(_context, next) {
        yield* next();
        try {
          next();
        } catch (error) {
          yield `refused: ${(error as MiddlewareError).code}`;
        }
      },
      { next: 'at-most-once' },
    );
    await expect(registry.run(Stage, { prompt: 'x' }, terminal)).resolves.toBe('refused: ERR_NEXT_POLICY');
  });
});
