/**
 * Strands' interrupts, ported: an approval hook that interrupts, the caller
 * collecting `result.interrupts` and answering each by id, here on the whole
 * run (an approval before the agent starts, with the same hook shape as
 * Strands' `BeforeToolCallEvent` one) as well as on a tool call.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type Middleware } from '../../../src/core/index';
import { Agent, AgentStreamStage, ExecuteToolStage, type Message } from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';

const textOf = (messages: readonly Message[]): string =>
  messages
    .flatMap((message) => message.content)
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join(' ');

/** Strands' ApprovalHook, on the whole run: asks `<app>-approval` before the agent starts, and refuses the run unless the answer is "y". */
function approvalHook(appName: string): Middleware {
  return {
    name: 'approvalHook',
    setup(registrar) {
      registrar.add(AgentStreamStage.Wrap, async function* approve(context, next) {
        const approval = context.interrupt({ name: `${appName}-approval`, reason: { request: textOf(context.messages) } }).response;
        if (approval !== 'y') {
          yield {
            type: 'agentResult',
            stopReason: 'endTurn',
            message: { role: 'assistant', content: [{ type: 'text', text: 'approval was not granted' }] },
            interrupts: [],
            usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          };
          return;
        }
        yield* next();
      });
    },
  };
}

describe('Strands interrupts, ported', () => {
  it('halts the whole run on the approval hook, and resumes it with the responses collected by interrupt id', async () => {
    const registry = new MiddlewareRegistry();
    registry.use(approvalHook('myapp'));
    const model = new ScriptedModel([textTurn('Deleted the object with key X.')]);
    const agent = new Agent({ model, registry, systemPrompt: 'You delete objects given their keys.' });

    let result = await agent.invoke("delete object with key 'X'");
    const asked = result.interrupts;
    if (result.stopReason === 'interrupt') {
      const responses: Record<string, unknown> = {};
      for (const interrupt of result.interrupts) if (interrupt.name === 'myapp-approval') responses[interrupt.id] = 'y';
      result = await agent.resume(responses);
    }
    expect([asked, result.stopReason, model.calls.length, agent.messages.length]).toEqual([
      [{ id: 'agentStream:myapp-approval', name: 'myapp-approval', reason: { request: "delete object with key 'X'" } }],
      'endTurn',
      1,
      2,
    ]);
  });

  it('shows the question on the stream the moment it is raised', async () => {
    const registry = new MiddlewareRegistry();
    registry.use(approvalHook('myapp'));
    const agent = new Agent({ model: new ScriptedModel([]), registry });
    const seen: string[] = [];
    for await (const event of agent.stream('go')) seen.push(event.type === 'interrupt' ? `ask ${event.interrupt.id}` : event.type);
    expect(seen).toEqual(['ask agentStream:myapp-approval', 'agentResult']);
  });

  it('accepts the approval given in advance with the input, as its id does not depend on the run', async () => {
    const registry = new MiddlewareRegistry();
    registry.use(approvalHook('myapp'));
    const agent = new Agent({ model: new ScriptedModel([textTurn('Done.')]), registry });
    const result = await agent.invoke('go', { interruptResponses: { 'agentStream:myapp-approval': 'y' } });
    expect(result.stopReason).toEqual('endTurn');
  });

  it('asks again in the next run: a response is not reused across runs', async () => {
    const registry = new MiddlewareRegistry();
    registry.use(approvalHook('myapp'));
    const agent = new Agent({ model: new ScriptedModel([textTurn('One.'), textTurn('Two.')]), registry });
    await agent.invoke('first', { interruptResponses: { 'agentStream:myapp-approval': 'y' } });
    expect((await agent.invoke('second')).interrupts.map((interrupt) => interrupt.id)).toEqual(['agentStream:myapp-approval']);
  });

  it('gates a tool call the same way, remembering "t" (trust) for the rest of the session in the invocation state', async () => {
    const registry = new MiddlewareRegistry();
    registry.add(ExecuteToolStage.Wrap, async function* approve(context, next) {
      if (context.toolUse.name !== 'delete_files' || context.invocationState.trusted === true) return yield* next();
      const approval = context.interrupt({
        name: 'myapp-approval',
        reason: { paths: (context.toolUse.input as { paths: string[] }).paths },
      }).response;
      if (approval === 't') context.invocationState.trusted = true;
      if (approval !== 'y' && approval !== 't') {
        yield {
          type: 'toolResult',
          toolResult: {
            type: 'toolResult',
            toolUseId: context.toolUse.toolUseId,
            name: context.toolUse.name,
            status: 'error',
            content: [{ type: 'text', text: 'approval was not granted' }],
          },
        };
        return;
      }
      yield* next();
    });
    const deleteFiles = new ScriptedTool({ name: 'delete_files', respond: () => true });
    const model = new ScriptedModel([
      toolUseTurn([{ name: 'delete_files', input: { paths: ['a.txt'] }, toolUseId: 'd1' }]),
      toolUseTurn([{ name: 'delete_files', input: { paths: ['b.txt'] }, toolUseId: 'd2' }]),
      textTurn('Both deleted.'),
    ]);
    const agent = new Agent({ model, registry, tools: [deleteFiles] });
    const session: Record<string, unknown> = {};
    const halted = await agent.invoke('delete a.txt and b.txt', { invocationState: session });
    const result = await agent.resume({ [halted.interrupts[0]?.id ?? '']: 't' });
    expect([halted.interrupts[0]?.reason, result.stopReason, deleteFiles.calls.length, session]).toEqual([
      { paths: ['a.txt'] },
      'endTurn',
      2,
      { trusted: true },
    ]);
  });
});
