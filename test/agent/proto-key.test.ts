/**
 * MW-139: a key named `__proto__` (or `constructor`, `prototype`) in what
 * reaches the agent from outside is an own key like any other, wherever the
 * agent copies, freezes, converts or restores it.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  type AgentSnapshot,
  AgentStreamStage,
  type Message,
  type ModelStreamEvent,
  toResultContent,
  type Tool,
} from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn } from '../../src/testing/index';
import { ZERO } from './fixtures';

/** What a prompt-injected model sends: a key that `=` would take as the prototype. */
const SMUGGLED = '{"__proto__":{"isAdmin":true},"q":1}';

/** The value `JSON.parse` makes of the text: `__proto__` an own key, the prototype `Object.prototype`. */
const parsed = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

/** How a value looks from outside: its own keys, its prototype, and what it inherits that the parsed text does not. */
function shape(value: unknown): unknown {
  const record = value as Record<string, unknown>;
  return {
    keys: Object.keys(record),
    plainPrototype: Object.getPrototypeOf(record) === Object.prototype,
    isAdmin: record.isAdmin,
    own: Object.getOwnPropertyDescriptor(record, '__proto__')?.value,
  };
}

const smuggledShape = { keys: ['__proto__', 'q'], plainPrototype: true, isAdmin: undefined, own: { isAdmin: true } };

/** A model turn asking for tool `t` with the input streamed as the JSON text `input`. */
function toolTurn(input: string): { readonly events: readonly ModelStreamEvent[] } {
  return {
    events: [
      { type: 'messageStart', role: 'assistant' },
      { type: 'toolUseStart', toolUseId: 'u1', name: 't' },
      { type: 'toolUseDelta', input: input.slice(0, 5) },
      { type: 'toolUseDelta', input: input.slice(5) },
      { type: 'messageStop', stopReason: 'toolUse' },
    ],
  };
}

const toolUse = (input: unknown): Message => ({
  role: 'assistant',
  content: [{ type: 'toolUse', toolUseId: 'u1', name: 't', input }],
});

describe('Agent', () => {
  describe('a tool input streamed with a "__proto__" key', () => {
    it('reaches a plain tool as an own key, inheriting nothing', async () => {
      const tool = new ScriptedTool({ name: 't' });
      const agent = new Agent({ model: new ScriptedModel([toolTurn(SMUGGLED), textTurn('done')]), tools: [tool] });
      await agent.invoke('go');
      expect(shape(tool.calls[0]?.input)).toEqual(smuggledShape);
    });

    it('is kept in the history, the snapshot and its JSON text as the model sent it', async () => {
      const agent = new Agent({
        model: new ScriptedModel([toolTurn(SMUGGLED), textTurn('done')]),
        tools: [new ScriptedTool({ name: 't' })],
      });
      await agent.invoke('go');
      const block = agent.messages[1]?.content[0] as { input: unknown };
      const snapshot = agent.snapshot();
      const snapshotInput = (snapshot.messages[1]?.content[0] as { input: unknown }).input;
      expect([shape(block.input), shape(snapshotInput), JSON.stringify(snapshotInput)]).toEqual([smuggledShape, smuggledShape, SMUGGLED]);
    });

    it('leaves Object.prototype untouched', async () => {
      const agent = new Agent({
        model: new ScriptedModel([toolTurn(SMUGGLED), textTurn('done')]),
        tools: [new ScriptedTool({ name: 't' })],
      });
      await agent.invoke('go');
      expect([Object.hasOwn(Object.prototype, 'isAdmin'), ({} as Record<string, unknown>).isAdmin]).toEqual([false, undefined]);
    });
  });

  describe('new Agent({ modelState }) with a "__proto__" key', () => {
    it('keeps the key as an own key of agent.modelState and of the state the model gets', async () => {
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model, modelState: parsed(SMUGGLED) });
      await agent.invoke('go');
      expect([shape(agent.modelState), shape(model.calls[0]?.state)]).toEqual([smuggledShape, smuggledShape]);
    });

    it('keeps the key when agent.modelState is assigned', () => {
      const agent = new Agent({ model: new ScriptedModel([]) });
      agent.modelState = parsed(SMUGGLED);
      expect(shape(agent.modelState)).toEqual(smuggledShape);
    });
  });

  describe('a snapshot with "__proto__" keys', () => {
    const snapshotText = JSON.stringify({
      version: 1,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        toolUse(parsed(SMUGGLED)),
        {
          role: 'user',
          content: [
            { type: 'toolResult', toolUseId: 'u1', name: 't', status: 'success', content: [{ type: 'json', json: parsed(SMUGGLED) }] },
          ],
        },
      ],
      modelState: parsed(SMUGGLED),
      usage: ZERO,
      halted: null,
    });

    it('restores the model state and the message blocks with the keys as own keys', () => {
      const agent = new Agent({ model: new ScriptedModel([]), snapshot: parsed(snapshotText) as unknown as AgentSnapshot });
      const input = (agent.messages[1]?.content[0] as { input: unknown }).input;
      const json = ((agent.messages[2]?.content[0] as unknown as { content: { json: unknown }[] }).content[0] as { json: unknown }).json;
      expect([shape(agent.modelState), shape(input), shape(json)]).toEqual([smuggledShape, smuggledShape, smuggledShape]);
    });

    it('sends the model the restored blocks, and snapshot() gives back the same JSON text', async () => {
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model, snapshot: parsed(snapshotText) as unknown as AgentSnapshot });
      const before = JSON.stringify(agent.snapshot());
      await agent.invoke('more');
      const sent = model.calls[0]?.request.messages[1]?.content[0] as { input: unknown };
      expect([before, shape(sent.input)]).toEqual([snapshotText, smuggledShape]);
    });

    it("keeps the key in a halted run's invocation state", async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, async function* gate(context, next) {
        context.interrupt({ name: 'approve' });
        yield* next();
      });
      const agent = new Agent({ model: new ScriptedModel([textTurn('hi')]), registry });
      await agent.invoke('go', { invocationState: parsed(SMUGGLED) });
      const saved = agent.snapshot() as AgentSnapshot & { halted: { invocationState: unknown } };
      const restored = new Agent({
        model: new ScriptedModel([textTurn('hi')]),
        registry,
        snapshot: parsed(JSON.stringify(saved)) as unknown as AgentSnapshot,
      });
      let seen: unknown;
      registry.add(AgentStreamStage.Input, (context) => {
        seen = context.invocationState;
        return context;
      });
      await restored.resume({ 'agentStream:approve': 'yes' });
      expect([shape(saved.halted.invocationState), shape(seen)]).toEqual([smuggledShape, smuggledShape]);
    });
  });
});

describe('toResultContent', () => {
  describe('a value with a "__proto__" key', () => {
    it('keeps the key as an own key of the JSON block', () => {
      const [block] = toResultContent(parsed(SMUGGLED)) as readonly { json: unknown }[];
      expect(shape(block?.json)).toEqual(smuggledShape);
    });

    it('keeps "constructor" and "prototype" keys as own data keys', () => {
      const [block] = toResultContent(parsed('{"constructor":{"name":"x"},"prototype":1}')) as readonly { json: unknown }[];
      expect([block?.json, Object.getPrototypeOf(block?.json) === Object.prototype]).toEqual([
        parsed('{"constructor":{"name":"x"},"prototype":1}'),
        true,
      ]);
    });
  });
});

describe('ExecuteToolStage terminal', () => {
  describe('a tool returning a value with a "__proto__" key', () => {
    it('answers with a JSON block holding the key as an own key', async () => {
      const tool: Tool = { spec: { name: 't', description: '', inputSchema: {} }, run: () => parsed(SMUGGLED) };
      const agent = new Agent({ model: new ScriptedModel([toolTurn('{}'), textTurn('done')]), tools: [tool] });
      await agent.invoke('go');
      const result = agent.messages[2]?.content[0] as unknown as { content: { json: unknown }[] };
      expect(shape(result.content[0]?.json)).toEqual(smuggledShape);
    });
  });
});
