import { castDraft, produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  AgentStreamStage,
  ExecuteToolStage,
  InvokeModelStage,
  type InvokeModelContext,
  type Message,
  type ModelResultEvent,
} from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { assistant, user, ZERO } from './fixtures';

describe('Agent', () => {
  describe('context isolation', () => {
    it('hands handlers frozen contexts that share the history array and its messages', async () => {
      const seen: InvokeModelContext[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, (context) => {
        seen.push(context);
        return context;
      });
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {} }]), textTurn('done')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], registry });
      await agent.invoke('go');
      const [first, second] = seen as [InvokeModelContext, InvokeModelContext];
      expect([Object.isFrozen(first), Object.isFrozen(first.messages), Object.isFrozen(first.messages[0])]).toEqual([true, true, true]);
      expect(second.messages[0]).toBe(first.messages[0]);
      expect(second.messages[0]).toBe(agent.messages[0]);
      expect(model.calls[1]?.request.messages).toBe(second.messages);
    });

    it('throws at once when a handler pushes onto context.messages, and the history is untouched', async () => {
      const registry = new MiddlewareRegistry();
      let caught: unknown;
      registry.add(InvokeModelStage.Wrap, async function* pusher(context, next) {
        try {
          (context.messages as Message[]).push(user('sneaky'));
        } catch (error) {
          caught = error;
        }
        yield* next();
      });
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]), registry });
      await agent.invoke('go');
      expect(caught).toBeInstanceOf(TypeError);
      expect(agent.messages).toEqual([user('go'), assistant('ok')]);
    });

    it('lets a handler change what the model sees with produce and next(context), without changing the history', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Wrap, async function* addNote(context, next) {
        yield* next({ ...context, messages: produce(context.messages, (draft) => void draft.push(castDraft(user('note')))) });
      });
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model, registry });
      await agent.invoke('go');
      expect(model.calls[0]?.request.messages).toEqual([user('go'), user('note')]);
      expect(model.calls[0]?.request.messages[0]).toBe(agent.messages[0]);
      expect(agent.messages).toEqual([user('go'), assistant('ok')]);
    });

    it('shares invocationState by reference with every handler and tool, unfrozen', async () => {
      const invocationState: Record<string, unknown> = { user: 'ada' };
      const registry = new MiddlewareRegistry();
      const states: unknown[] = [];
      registry.add(InvokeModelStage.Input, (context) => {
        states.push(context.invocationState);
        context.invocationState.calls = ((context.invocationState.calls as number | undefined) ?? 0) + 1;
        return context;
      });
      registry.add(AgentStreamStage.Input, (context) => (states.push(context.invocationState), context));
      const tool = new ScriptedTool({ name: 'a', respond: (_input, context) => void states.push(context.invocationState) });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'a', input: {} }]), textTurn('ok')]),
        tools: [tool],
        registry,
      });
      await agent.invoke('go', { invocationState });
      expect(states.every((state) => state === invocationState)).toEqual(true);
      expect(states.length).toEqual(4);
      expect(invocationState).toEqual({ user: 'ada', calls: 2 });
      expect(Object.isFrozen(invocationState)).toEqual(false);
    });

    it('hands ExecuteToolStage and AgentStreamStage handlers frozen contexts, the tool input included', async () => {
      const registry = new MiddlewareRegistry();
      const seen: boolean[][] = [];
      registry.add(
        ExecuteToolStage.Input,
        (context) => (
          seen.push([Object.isFrozen(context), Object.isFrozen(context.toolUse), Object.isFrozen(context.toolUse.input)]),
          context
        ),
      );
      registry.add(
        AgentStreamStage.Input,
        (context) => (
          seen.push([Object.isFrozen(context), Object.isFrozen(context.messages), Object.isFrozen(context.messages[0])]),
          context
        ),
      );
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: { deep: { n: 1 } } }]), textTurn('ok')]);
      await new Agent({ model, registry, tools: [new ScriptedTool({ name: 'a' })] }).invoke('go');
      expect(seen).toEqual([
        [true, true, true],
        [true, true, true],
      ]);
    });

    it('copies what the caller passes, so the caller objects stay unfrozen and unshared', async () => {
      const input = user('go');
      const blocks = [{ text: 'sys' }];
      const initial = [assistant('hello')];
      const modelState = { count: 1 };
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]), systemPrompt: blocks, messages: initial, modelState });
      await agent.invoke(input);
      expect([
        Object.isFrozen(input),
        Object.isFrozen(input.content),
        Object.isFrozen(blocks),
        Object.isFrozen(initial[0]),
        Object.isFrozen(modelState),
      ]).toEqual([false, false, false, false, false]);
      expect(agent.messages[1]).not.toBe(input);
      (input.content as unknown as { text: string }[])[0] = { text: 'changed' };
      expect(agent.messages[1]).toEqual(user('go'));
    });
  });

  describe('model state', () => {
    it('writes the model changes and deletions back after the chain succeeds', async () => {
      const model = new ScriptedModel([{ ...textTurn('ok'), stateWrites: { added: 1 }, stateDeletes: ['gone'] }]);
      const agent = new Agent({ model, modelState: { gone: true, kept: 'yes' } });
      let duringCall: unknown;
      const registry = agent.registry;
      registry.add(InvokeModelStage.Wrap, async function* peek(_context, next) {
        yield* next();
        duringCall = agent.modelState;
      });
      await agent.invoke('go');
      expect(duringCall).toEqual({ gone: true, kept: 'yes' });
      expect(agent.modelState).toEqual({ kept: 'yes', added: 1 });
      expect(Object.isFrozen(agent.modelState)).toEqual(true);
    });

    it.each([['before'], ['after']])('drops a handler change made %s next() and keeps it from the model', async (when) => {
      const registry = new MiddlewareRegistry();
      const model = new ScriptedModel([{ ...textTurn('ok'), stateWrites: { model: 'wrote' } }]);
      const agent = new Agent({ model, registry, modelState: { start: true } });
      registry.add(InvokeModelStage.Wrap, async function* meddle(_context, next) {
        if (when === 'before') agent.modelState = { handler: 'wrote' };
        yield* next();
        if (when === 'after') agent.modelState = { handler: 'wrote' };
      });
      await agent.invoke('go');
      expect(model.calls[0]?.state).toEqual({ start: true });
      expect(agent.modelState).toEqual({ start: true, model: 'wrote' });
    });

    it('drops a handler change made in the Input phase and keeps it from the model', async () => {
      const registry = new MiddlewareRegistry();
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model, registry, modelState: { start: true } });
      registry.add(InvokeModelStage.Input, (context) => {
        agent.modelState = { handler: 'wrote' };
        return context;
      });
      await agent.invoke('go');
      expect([model.calls[0]?.state, agent.modelState]).toEqual([{ start: true }, { start: true }]);
    });

    it('drops a handler change when the handler short-circuits and no model call completes', async () => {
      const registry = new MiddlewareRegistry();
      const model = new ScriptedModel([]);
      const agent = new Agent({ model, registry, modelState: { start: true } });
      registry.add(InvokeModelStage.Wrap, async function* cached() {
        agent.modelState = { handler: 'wrote' };
        const result: ModelResultEvent = { type: 'modelResult', message: assistant('cached'), stopReason: 'endTurn', usage: ZERO };
        yield result;
      });
      await agent.invoke('go');
      expect([model.calls.length, agent.modelState, agent.messages]).toEqual([0, { start: true }, [user('go'), assistant('cached')]]);
    });

    it('writes nothing when the chain fails after the model completed', async () => {
      const registry = new MiddlewareRegistry();
      const failure = new Error('output failed');
      registry.add(InvokeModelStage.Output, () => {
        throw failure;
      });
      const model = new ScriptedModel([{ ...textTurn('ok'), stateWrites: { model: 'wrote' } }]);
      const agent = new Agent({ model, registry, modelState: { start: true } });
      await expect(agent.invoke('go')).rejects.toBe(failure);
      expect(agent.modelState).toEqual({ start: true });
    });

    it('lets a caller replace the model state between runs', async () => {
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model });
      agent.modelState = { fresh: 1 };
      await agent.invoke('go');
      expect(model.calls[0]?.state).toEqual({ fresh: 1 });
    });
  });
});
