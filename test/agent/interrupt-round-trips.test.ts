import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { Agent, AgentStreamStage, type AgentSnapshot, type Tool } from '../../src/agent/index';
import { failingTurn, ScriptedModel, textTurn, toolUseTurn } from '../../src/testing/index';

/** A tool that asks `approve` and returns its response. */
const asking = (name: string): Tool => ({
  spec: { name, description: `Asks before ${name}.`, inputSchema: { type: 'object' } },
  run: (_input, context) => context.interrupt({ name: 'approve', reason: name }).response,
});

/** An AgentStreamStage Input handler asking `budget` whenever the invocation state has `ask` set. */
function askBudgetWhenFlagged(registry: MiddlewareRegistry): void {
  registry.add(AgentStreamStage.Input, function budgetCheck(context) {
    if (context.invocationState.ask === true) context.interrupt({ name: 'budget', reason: 'over budget' });
    return context;
  });
}

describe('Agent', () => {
  describe('a halt of the whole run while resuming a halted turn', () => {
    function setup() {
      const registry = new MiddlewareRegistry();
      askBudgetWhenFlagged(registry);
      const model = new ScriptedModel([
        toolUseTurn([
          { name: 'a', input: {}, toolUseId: 't1' },
          { name: 'b', input: {}, toolUseId: 't2' },
        ]),
        textTurn('Both done.'),
      ]);
      return new Agent({ model, registry, tools: [asking('a'), asking('b')] });
    }

    it('keeps the tool questions still unanswered pending after the question about the run', async () => {
      const agent = setup();
      await agent.invoke('Do both');
      const halted = await agent.resume({ 'executeTool:t1:approve': 'yes' }, { invocationState: { ask: true } });
      expect([halted.interrupts.map((interrupt) => interrupt.id), agent.pendingInterrupts.map((interrupt) => interrupt.id)]).toEqual([
        ['executeTool:t2:approve', 'agentStream:budget'],
        ['executeTool:t2:approve', 'agentStream:budget'],
      ]);
    });

    it('yields an interrupt event only for the question it raised', async () => {
      const agent = setup();
      await agent.invoke('Do both');
      const types: string[] = [];
      for await (const event of agent.stream(undefined, {
        interruptResponses: { 'executeTool:t1:approve': 'yes' },
        invocationState: { ask: true },
      }))
        types.push(event.type === 'interrupt' ? `interrupt ${event.interrupt.id}` : event.type);
      expect(types).toEqual(['interrupt agentStream:budget', 'agentResult']);
    });

    it('takes the answers to every question shown so far in the next resume and finishes the turn', async () => {
      const agent = setup();
      await agent.invoke('Do both');
      await agent.resume({ 'executeTool:t1:approve': 'yes' }, { invocationState: { ask: true } });
      const done = await agent.resume({ 'agentStream:budget': 'fine', 'executeTool:t2:approve': 'also yes' }, { invocationState: {} });
      expect([
        done.stopReason,
        agent.pendingInterrupts,
        agent.messages[2]?.content.map((block) => block.type === 'toolResult' && block.content),
      ]).toEqual(['endTurn', [], [[{ type: 'text', text: 'yes' }], [{ type: 'text', text: 'also yes' }]]]);
    });
  });

  describe('a halt of the whole run after a tool question of the same run was shown', () => {
    it('keeps the tool question pending, so its answer is taken by the resume', async () => {
      const registry = new MiddlewareRegistry();
      // Escalates to a question about the run as soon as a tool asks something.
      registry.add(AgentStreamStage.Wrap, async function* escalate(context, next) {
        for await (const event of next()) {
          yield event;
          if (event.type === 'interrupt') context.interrupt({ name: 'escalate' });
        }
      });
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 't1' }]), textTurn('Done.')]);
      const agent = new Agent({ model, registry, tools: [asking('a')] });
      const halted = await agent.invoke('Do a');
      expect(halted.interrupts.map((interrupt) => interrupt.id)).toEqual(['executeTool:t1:approve', 'agentStream:escalate']);
    });
  });

  describe('a resume that fails', () => {
    function setup(snapshot?: AgentSnapshot) {
      const model = new ScriptedModel([
        toolUseTurn([
          { name: 'a', input: {}, toolUseId: 't1' },
          { name: 'b', input: {}, toolUseId: 't2' },
        ]),
        failingTurn(new Error('model down')),
        textTurn('Hello again.'),
      ]);
      return new Agent({ model, tools: [asking('a'), asking('b')], ...(snapshot === undefined ? {} : { snapshot }) });
    }

    it('rejects with the error and leaves no question pending', async () => {
      const agent = setup();
      await agent.invoke('Do both');
      const error = await agent
        .resume({ 'executeTool:t1:approve': 'yes', 'executeTool:t2:approve': 'yes' })
        .catch((thrown: unknown) => thrown);
      expect([(error as Error).message, agent.pendingInterrupts]).toEqual(['model down', []]);
    });

    it('closes the halted turn with the results it had before the failed run and an error result for each call without one', async () => {
      const agent = setup();
      await agent.invoke('Do both');
      await agent.resume({ 'executeTool:t1:approve': 'yes' }).catch(() => undefined);
      await agent.resume({ 'executeTool:t2:approve': 'yes' }).catch(() => undefined);
      expect(agent.messages.slice(2)).toEqual([
        {
          role: 'user',
          content: [
            { type: 'toolResult', toolUseId: 't1', name: 'a', status: 'success', content: [{ type: 'text', text: 'yes' }] },
            {
              type: 'toolResult',
              toolUseId: 't2',
              name: 'b',
              status: 'error',
              content: [{ type: 'text', text: 'No result for tool "b": the run that resumed this call failed.' }],
            },
          ],
        },
      ]);
    });

    it('takes new input afterwards', async () => {
      const agent = setup();
      await agent.invoke('Do both');
      await agent.resume({ 'executeTool:t1:approve': 'yes', 'executeTool:t2:approve': 'yes' }).catch(() => undefined);
      const next = await agent.invoke('Hello?');
      expect([next.stopReason, agent.messages.length]).toEqual(['endTurn', 5]);
    });

    it('refuses new input before the resume, as before', async () => {
      const agent = setup();
      await agent.invoke('Do both');
      const error = await agent.invoke('Hello?').catch((thrown: unknown) => thrown);
      expect(MiddlewareError.isInstance(error) && error.code).toEqual('ERR_INTERRUPT_PENDING');
    });
  });

  describe('a resume that is cancelled', () => {
    it('keeps the questions pending for another resume', async () => {
      const registry = new MiddlewareRegistry();
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 't1' }]), textTurn('Done.')]);
      const agent = new Agent({ model, registry, tools: [asking('a')] });
      await agent.invoke('Do a');
      const cancelled = await agent.resume({ 'executeTool:t1:approve': 'yes' }, { signal: AbortSignal.abort() });
      expect([cancelled.stopReason, agent.pendingInterrupts.map((interrupt) => interrupt.id)]).toEqual([
        'cancelled',
        ['executeTool:t1:approve'],
      ]);
    });
  });
});
