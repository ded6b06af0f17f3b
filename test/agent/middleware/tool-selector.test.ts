import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../../src/core/index';
import {
  Agent,
  InvokeModelStage,
  createModelContext,
  modelCallLimit,
  modelTerminal,
  toolSelector,
  type ToolSelectorOptions,
} from '../../../src/agent/index';
import { retry } from '../../../src/middleware/index';
import { ScriptedModel, ScriptedTool, failingTurn, textTurn } from '../../../src/testing/index';
import { caught } from '../../assertions';

const SELECTION_USAGE = { inputTokens: 40, outputTokens: 4, totalTokens: 44 };
const ANSWER_USAGE = { inputTokens: 10, outputTokens: 2, totalTokens: 12 };

/** Scripted tools of these names. */
const toolsNamed = (...names: string[]) => names.map((name) => new ScriptedTool({ name, description: `Does ${name}.` }));

/** An agent with five tools whose calls a toolSelector with `options` prepares; its model first picks with `reply`. */
function selectingAgent(options: ToolSelectorOptions, reply: string, registry = new MiddlewareRegistry()) {
  const model = new ScriptedModel([textTurn(reply, { usage: SELECTION_USAGE }), textTurn('Answer.', { usage: ANSWER_USAGE })]);
  registry.add(InvokeModelStage.Input, toolSelector(options));
  const agent = new Agent({ model, registry, tools: toolsNamed('search', 'search_news', 'calc', 'clock', 'mail') });
  return { agent, model };
}

/** The tool names each model call was offered. */
const offered = (model: ScriptedModel): string[][] => model.calls.map((call) => call.request.toolSpecs.map((spec) => spec.name));

describe('toolSelector', () => {
  describe('a call with more tools than maxTools', () => {
    it('offers the picked tools, at most maxTools in the order of the reply, and those always included, in the agent order', async () => {
      const { agent, model } = selectingAgent({ maxTools: 2, alwaysInclude: ['clock'] }, 'mail, then search and calc');
      await agent.invoke('Mail me the result of 6 * 7');
      expect(offered(model)).toEqual([[], ['search', 'clock', 'mail']]);
    });

    it('asks with the last request and every candidate, the cap and the default instructions', async () => {
      const { agent, model } = selectingAgent({ maxTools: 2, alwaysInclude: ['clock'] }, 'calc');
      await agent.invoke('What is 6 * 7?');
      expect([model.calls[0]?.request.systemPrompt, model.calls[0]?.request.messages]).toEqual([
        'You choose the tools an assistant needs to answer a request, from a list. Choose only tools the request needs.',
        [
          {
            role: 'user',
            content: [
              {
                type: 'text',
                text: 'Request: What is 6 * 7?\n\nTools:\nsearch: Does search.\nsearch_news: Does search_news.\ncalc: Does calc.\nmail: Does mail.\n\nReply with the names of the tools the request needs, at most 2, one per line.',
              },
            ],
          },
        ],
      ]);
    });

    it('picks only whole names of candidates: a name inside another, or no tool at all, is not picked', async () => {
      const { agent, model } = selectingAgent({}, '1. `search_news`\n2. weather\n3. researcher');
      await agent.invoke('News?');
      expect(offered(model)[1]).toEqual(['search_news']);
    });

    it('leaves the call only the tools always included when the reply picks none', async () => {
      const { agent, model } = selectingAgent({ alwaysInclude: ['clock'] }, 'None of them.');
      await agent.invoke('Hello');
      expect(offered(model)[1]).toEqual(['clock']);
    });
  });

  describe('its own call', () => {
    it('is reported as toolSelector, apart from the agent usage, and not counted by modelCallLimit', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(modelCallLimit({ runLimit: 1 }));
      const { agent } = selectingAgent({ maxTools: 1 }, 'calc', registry);
      const result = await agent.invoke('6 * 7?');
      expect([result.stopReason, result.usage, result.middlewareUsage]).toEqual([
        'endTurn',
        ANSWER_USAGE,
        { toolSelector: SELECTION_USAGE },
      ]);
    });

    it('is made once per model call, not again when a retry inside it calls the model again', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Wrap, retry({ attempts: 2, backoff: () => 0 }));
      const model = new ScriptedModel([textTurn('calc'), failingTurn(new Error('overloaded')), textTurn('42.')]);
      registry.add(InvokeModelStage.Input, toolSelector({ maxTools: 1 }));
      const agent = new Agent({ model, registry, tools: toolsNamed('search', 'calc') });
      await agent.invoke('6 * 7?');
      expect([offered(model), model.calls.map((call) => call.request.systemPrompt.length > 0)]).toEqual([
        [[], ['calc'], ['calc']],
        [true, false, false],
      ]);
    });

    it('fails the call with its error, unchanged', async () => {
      const failure = new Error('selector down');
      const model = new ScriptedModel([failingTurn(failure)]);
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, toolSelector());
      const agent = new Agent({ model, registry, tools: toolsNamed('search', 'calc') });
      await expect(agent.invoke('6 * 7?')).rejects.toBe(failure);
    });

    it('uses the model it is given', async () => {
      const picker = new ScriptedModel([textTurn('calc')]);
      const model = new ScriptedModel([textTurn('42.')]);
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, toolSelector({ model: picker, instructions: 'Pick.' }));
      const agent = new Agent({ model, registry, tools: toolsNamed('search', 'calc') });
      await agent.invoke('6 * 7?');
      expect([picker.calls.map((call) => call.request.systemPrompt), offered(model)]).toEqual([['Pick.'], [['calc']]]);
    });
  });

  describe('calls it leaves alone', () => {
    it('makes no call when the candidates are at most maxTools', async () => {
      const model = new ScriptedModel([textTurn('42.')]);
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, toolSelector({ maxTools: 1, alwaysInclude: ['clock'] }));
      const agent = new Agent({ model, registry, tools: toolsNamed('calc', 'clock') });
      await agent.invoke('6 * 7?');
      expect(offered(model)).toEqual([['calc', 'clock']]);
    });

    it('fails a call of a loop of its own without invokeModel with ERR_INVALID_OPTIONS', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, toolSelector());
      const context = createModelContext({
        model: new ScriptedModel([textTurn('42.')]),
        messages: [{ role: 'user', content: [{ type: 'text', text: '6 * 7?' }] }],
        systemPrompt: undefined,
        toolSpecs: toolsNamed('search', 'calc').map((tool) => tool.spec),
        invocationState: {},
      });
      const error = (await registry.run(InvokeModelStage, context, modelTerminal).catch((thrown: unknown) => thrown)) as MiddlewareError;
      expect([MiddlewareError.isInstance(error), error.code, error.stage, error.phase, error.handler]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'invokeModel',
        'input',
        'toolSelector',
      ]);
    });
  });

  describe('with options it cannot use', () => {
    it.each<[string, unknown]>([
      ['options that are not an object', 5],
      ['a maxTools of 0', { maxTools: 0 }],
      ['alwaysInclude that are not names', { alwaysInclude: 'clock' }],
      ['a model without stream()', { model: {} }],
      ['instructions that are not a string', { instructions: null }],
      ['an unknown option', { systemPrompt: 'Pick.' }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_label, options) => {
      const error = caught(() => toolSelector(options as never));
      expect([MiddlewareError.isInstance(error), error.code, error.handler, error.phase]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'toolSelector',
        'register',
      ]);
    });
  });
});

describe('createModelContext', () => {
  describe('with an invokeModel', () => {
    it('puts it on the context as it is, and refuses one that is no function', () => {
      const invokeModel = (): never => {
        throw new Error('not called');
      };
      const parts = { model: new ScriptedModel([]), messages: [], systemPrompt: undefined, toolSpecs: [], invocationState: {} };
      const error = caught(() => createModelContext({ ...parts, invokeModel: 'call' as never }));
      expect([createModelContext({ ...parts, invokeModel }).invokeModel === invokeModel, error.code]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
      ]);
    });
  });
});
