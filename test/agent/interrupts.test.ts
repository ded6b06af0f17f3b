import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, ExecuteToolStage, InterruptSignal, createInterrupt, interruptId, type Message } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { ZERO } from './fixtures';

/** An agent whose ExecuteToolStage handler asks for approval of every `delete` call. */
function approvalAgent(turns = [toolUseTurn([{ name: 'delete', input: { path: 'a.txt' }, toolUseId: 'd1' }]), textTurn('deleted')]) {
  const registry = new MiddlewareRegistry();
  const answers: unknown[] = [];
  registry.add(ExecuteToolStage.Wrap, async function* approval(context, next) {
    if (context.toolUse.name === 'delete') {
      const { response } = context.interrupt({
        name: 'approve',
        reason: `delete ${JSON.stringify(context.toolUse.input)}?`,
        response: context.invocationState.preApproved,
      });
      answers.push(response);
      if (response !== 'yes') {
        yield {
          type: 'toolResult',
          toolResult: {
            type: 'toolResult',
            toolUseId: context.toolUse.toolUseId,
            name: context.toolUse.name,
            status: 'error',
            content: [{ type: 'text', text: 'denied' }],
          },
        };
        return;
      }
    }
    yield* next();
  });
  const remove = new ScriptedTool({ name: 'delete', outcomes: [{ value: 'removed' }] });
  const read = new ScriptedTool({ name: 'read', outcomes: [{ value: 'contents' }] });
  const model = new ScriptedModel(turns);
  const agent = new Agent({ model, registry, tools: [remove, read] });
  return { agent, answers, remove, read, model };
}

describe('Agent', () => {
  describe('halting on an interrupt', () => {
    it('halts the agent with stop reason interrupt and the pending interrupt', async () => {
      const { agent, remove } = approvalAgent();
      const result = await agent.invoke('clean up');
      const toolUseMessage: Message = {
        role: 'assistant',
        content: [{ type: 'toolUse', toolUseId: 'd1', name: 'delete', input: { path: 'a.txt' } }],
      };
      const interrupt = { id: 'executeTool:d1:approve', name: 'approve', reason: 'delete {"path":"a.txt"}?' };
      expect(result).toEqual({
        type: 'agentResult',
        stopReason: 'interrupt',
        message: toolUseMessage,
        interrupts: [interrupt],
        usage: ZERO,
      });
      expect(agent.pendingInterrupts).toEqual([interrupt]);
      expect(remove.calls).toEqual([]);
      expect(agent.messages.at(-1)).toEqual(toolUseMessage);
    });

    it('builds interrupt ids from stage, tool-use id and name', () => {
      expect(interruptId('executeTool', 'tu-7', 'approve')).toEqual('executeTool:tu-7:approve');
    });

    it('lets a tool interrupt through its own context', async () => {
      const tool = new ScriptedTool({
        name: 'pay',
        respond: (_input, context) => context.interrupt({ name: 'confirm', reason: 'pay 5 EUR' }).response,
      });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'pay', input: {}, toolUseId: 'p1' }]), textTurn('paid')]),
        tools: [tool],
      });
      expect((await agent.invoke('pay')).interrupts).toEqual([{ id: 'executeTool:p1:confirm', name: 'confirm', reason: 'pay 5 EUR' }]);
      const result = await agent.resume({ 'executeTool:p1:confirm': 'ok' });
      expect(result.stopReason).toEqual('endTurn');
      expect(agent.messages[2]?.content).toEqual([
        { type: 'toolResult', toolUseId: 'p1', name: 'pay', status: 'success', content: [{ type: 'text', text: 'ok' }] },
      ]);
    });
  });

  describe('resuming after interrupts', () => {
    it('returns the stored response from the same call and finishes the run', async () => {
      const { agent, answers, remove, model } = approvalAgent();
      await agent.invoke('clean up');
      const result = await agent.resume({ 'executeTool:d1:approve': 'yes' });
      expect(answers).toEqual(['yes']);
      expect(remove.calls.map((call) => call.input)).toEqual([{ path: 'a.txt' }]);
      expect(result.stopReason).toEqual('endTurn');
      expect(agent.pendingInterrupts).toEqual([]);
      expect(model.calls.length).toEqual(2);
      expect(agent.messages.slice(2)).toEqual([
        {
          role: 'user',
          content: [
            { type: 'toolResult', toolUseId: 'd1', name: 'delete', status: 'success', content: [{ type: 'text', text: 'removed' }] },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'deleted' }] },
      ]);
    });

    it('skips the halt when a response is pre-supplied', async () => {
      const { agent, answers } = approvalAgent();
      const result = await agent.invoke('clean up', { invocationState: { preApproved: 'yes' } });
      expect([result.stopReason, answers]).toEqual(['endTurn', ['yes']]);
    });

    it('prefers a stored response over a pre-supplied one', async () => {
      const { agent, answers, remove } = approvalAgent();
      await agent.invoke('clean up');
      await agent.resume({ 'executeTool:d1:approve': 'no' }, { invocationState: { preApproved: 'yes' } });
      expect([answers, remove.calls.length]).toEqual([['no'], 0]);
    });

    it('re-runs only the interrupted tool uses and answers all of them in order', async () => {
      const { agent, read, remove } = approvalAgent([
        toolUseTurn([
          { name: 'read', input: {}, toolUseId: 'r1' },
          { name: 'delete', input: { path: 'b' }, toolUseId: 'd1' },
        ]),
        textTurn('done'),
      ]);
      await agent.invoke('go');
      await agent.resume({ 'executeTool:d1:approve': 'yes' });
      expect([read.calls.length, remove.calls.length]).toEqual([1, 1]);
      expect(agent.messages[2]?.content.map((block) => (block.type === 'toolResult' ? block.toolUseId : block.type))).toEqual(['r1', 'd1']);
    });

    it('halts again when a resumed run interrupts anew, keeping the earlier response', async () => {
      const { agent, answers } = approvalAgent([
        toolUseTurn([{ name: 'delete', input: 1, toolUseId: 'd1' }]),
        toolUseTurn([{ name: 'delete', input: 2, toolUseId: 'd2' }]),
        textTurn('done'),
      ]);
      await agent.invoke('go');
      const second = await agent.resume({ 'executeTool:d1:approve': 'yes' });
      expect(second.interrupts.map((interrupt) => interrupt.id)).toEqual(['executeTool:d2:approve']);
      const third = await agent.resume({ 'executeTool:d2:approve': 'yes' });
      expect([third.stopReason, answers]).toEqual(['endTurn', ['yes', 'yes']]);
    });

    it('ends the halt and closes its turn when a resume fails, so new input is taken', async () => {
      const failure = new Error('tool crashed');
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, async function* ask(context, next) {
        const { response } = context.interrupt({ name: 'go' });
        if (response === 'crash') throw failure;
        yield* next();
      });
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]), textTurn('done')]);
      const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'a' })] });
      await agent.invoke('go');
      await expect(agent.resume({ 'executeTool:a1:go': 'crash' })).rejects.toBe(failure);
      expect([agent.pendingInterrupts, agent.messages[2]?.content.map((block) => block.type === 'toolResult' && block.status)]).toEqual([
        [],
        ['error'],
      ]);
      expect((await agent.invoke('go on')).stopReason).toEqual('endTurn');
    });
  });

  describe('misuse of interrupts', () => {
    it.each([
      ['new input while interrupts are pending', (agent: Agent) => agent.invoke('something else')],
      ['no responses while interrupts are pending', (agent: Agent) => agent.invoke(undefined)],
      ['a response for an id that is not pending', (agent: Agent) => agent.resume({ 'executeTool:zz:approve': 'yes' })],
    ])('rejects %s with ERR_INTERRUPT_PENDING', async (_label, act) => {
      const { agent } = approvalAgent();
      await agent.invoke('clean up');
      await expect(act(agent)).rejects.toThrow(expect.objectContaining({ code: 'ERR_INTERRUPT_PENDING', stage: 'agentStream' }));
      expect(agent.pendingInterrupts.length).toEqual(1);
    });

    it('rejects responses when nothing is pending with ERR_INTERRUPT_PENDING', async () => {
      const agent = new Agent({ model: new ScriptedModel([]) });
      await expect(agent.resume({ x: 1 })).rejects.toThrow(expect.objectContaining({ code: 'ERR_INTERRUPT_PENDING' }));
    });

    it.each([[{}], [{ name: '' }], [null]])('rejects the request %j with ERR_INVALID_OPTIONS', (request) => {
      const interrupt = createInterrupt('executeTool', 't1', new Map());
      expect(() => interrupt(request as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'executeTool' }));
    });
  });
});

describe('InterruptSignal', () => {
  describe('isInstance', () => {
    it('recognises signals and nothing else', () => {
      const signal = new InterruptSignal({ id: 'executeTool:t:n', name: 'n', reason: undefined });
      expect([InterruptSignal.isInstance(signal), InterruptSignal.isInstance(new Error('x')), InterruptSignal.isInstance(null)]).toEqual([
        true,
        false,
        false,
      ]);
      expect(signal.message).toEqual(
        'Interrupt "executeTool:t:n" is waiting for a response. Resume the agent with agent.resume({ "executeTool:t:n": response }).',
      );
    });

    it('rejects a lookalike carrying a marker property, and reads nothing of a hostile value', () => {
      const lookalike = Object.assign(new Error('x'), {
        [Symbol.for('staged-middleware.interrupt-signal')]: true,
        interrupt: { id: 'i', name: 'n' },
      });
      const hostile = new Proxy(
        {},
        {
          get: () => {
            throw new Error('get trap');
          },
          has: () => {
            throw new Error('has trap');
          },
        },
      );
      expect([InterruptSignal.isInstance(lookalike), InterruptSignal.isInstance(hostile)]).toEqual([false, false]);
    });
  });
});
