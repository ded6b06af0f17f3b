import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type SystemContentBlock } from '../../src/core/index';
import { Agent, InvokeModelStage, toModelRequest, type InvokeModelContext } from '../../src/agent/index';
import { ScriptedModel, textTurn } from '../../src/testing/index';
import { user } from './fixtures';

/** The fields of a MiddlewareError a test compares, or the value thrown when it is none. */
function described(error: unknown): unknown {
  if (!MiddlewareError.isInstance(error)) return error;
  return { code: error.code, stage: error.stage, phase: error.phase, handler: error.handler, message: error.message };
}

/** The refusal of a context whose `part` is `shown`. */
function refusal(part: string, expected: string, shown: string): unknown {
  return {
    code: 'ERR_INVALID_OPTIONS',
    stage: 'invokeModel',
    phase: 'terminal',
    handler: undefined,
    message: `[ERR_INVALID_OPTIONS] InvokeModelStage: the context's ${part} must be ${expected}, got ${shown}. A handler that sets the prompt puts blocks there, [{ text: '...' }] (toSystemBlocks(prompt) makes them of a string), so the handlers after it can add blocks to it.`,
  };
}

const ARRAY = 'an array of system blocks ({ text } or { cachePoint })';
const BLOCK = 'a block ({ text } or { cachePoint })';

/** Runs an agent whose Input handler replaces the system prompt with `prompt`; what the run threw, the model's calls and the history. */
async function runWithPrompt(prompt: unknown): Promise<unknown[]> {
  const registry = new MiddlewareRegistry();
  registry.add(InvokeModelStage.Input, (context) => ({ ...context, systemPrompt: prompt as SystemContentBlock[] }));
  const model = new ScriptedModel([textTurn('never')]);
  const agent = new Agent({ model, registry, systemPrompt: 'Be brief.', messages: [user('before')] });
  let thrown: unknown;
  try {
    await agent.invoke('go');
  } catch (error) {
    thrown = error;
  }
  return [described(thrown), model.calls.length, agent.messages];
}

describe('Agent', () => {
  describe('with a handler that puts a system prompt other than blocks in the model context', () => {
    it.each<[string, unknown, unknown]>([
      ['a string', 'Be terse.', refusal('systemPrompt', ARRAY, 'the string "Be terse."')],
      ['undefined', undefined, refusal('systemPrompt', ARRAY, 'undefined')],
      ['a single block', { text: 'Be terse.' }, refusal('systemPrompt', ARRAY, 'a plain object')],
      ['an array holding a string', ['Be terse.'], refusal('systemPrompt[0]', BLOCK, 'the string "Be terse."')],
      ['an array holding null', [{ text: 'a' }, null], refusal('systemPrompt[1]', BLOCK, 'null')],
    ])('rejects the run given %s, before calling the model, and keeps nothing', async (_name, prompt, error) => {
      expect(await runWithPrompt(prompt)).toEqual([error, 0, [user('before')]]);
    });

    it('refuses the one-character strings a later handler makes by spreading a string into an array', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, (context) => ({ ...context, systemPrompt: 'Hi' as unknown as SystemContentBlock[] }));
      registry.add(InvokeModelStage.Input, (context) => ({ ...context, systemPrompt: [...context.systemPrompt, { text: 'Today.' }] }));
      const model = new ScriptedModel([textTurn('never')]);
      await expect(new Agent({ model, registry }).invoke('go').catch(described)).resolves.toEqual(
        refusal('systemPrompt[0]', BLOCK, 'the string "H"'),
      );
    });

    it('refuses a string a Wrap handler passes to next()', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Wrap, async function* terse(context, next) {
        yield* next({ ...context, systemPrompt: 'Be terse.' as unknown as SystemContentBlock[] });
      });
      const model = new ScriptedModel([textTurn('never')]);
      await expect(new Agent({ model, registry }).invoke('go').catch(described)).resolves.toEqual(
        refusal('systemPrompt', ARRAY, 'the string "Be terse."'),
      );
    });
  });
});

describe('toModelRequest', () => {
  describe('a context whose system prompt is not blocks', () => {
    it('throws ERR_INVALID_OPTIONS naming it', () => {
      const context = {
        model: new ScriptedModel([]),
        messages: [],
        systemPrompt: 'Be terse.',
        toolSpecs: [],
        invocationState: {},
      } as unknown as InvokeModelContext;
      let thrown: unknown;
      try {
        toModelRequest(context);
      } catch (error) {
        thrown = error;
      }
      expect(described(thrown)).toEqual(refusal('systemPrompt', ARRAY, 'the string "Be terse."'));
    });
  });

  describe('a context whose system prompt holds blocks of a kind it does not know', () => {
    it('carries them to the model untouched', () => {
      const blocks = [{ guard: 'x' }, { text: 'a' }];
      const context = { model: new ScriptedModel([]), messages: [], systemPrompt: blocks, toolSpecs: [], invocationState: {} };
      expect(toModelRequest(context)).toEqual({
        messages: [],
        systemPrompt: 'a',
        systemBlocks: blocks,
        toolSpecs: [],
        toolChoice: undefined,
      });
    });
  });
});
