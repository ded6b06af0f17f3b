/**
 * CubePi's middleware list, ported: its composition rules written as
 * registrations in CubePi's list order (`before_tool_call` first block
 * stops, `after_tool_call` later overrides earlier, `transform_context`
 * chains without touching the history, `convert_to_llm` last wins,
 * `after_model_response` merges, `terminate`). Its CompactionMiddleware,
 * SubagentMiddleware and TodoListMiddleware are in cubepi-builtins.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type Middleware } from '../../../src/core/index';
import {
  Agent,
  ExecuteToolStage,
  InvokeModelStage,
  afterToolCall,
  turnAction,
  TurnStage,
  type InvokeModelContext,
  type ToolResultEvent,
} from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';
import { resultText, say, textOf } from './cubepi-messages';

const blocked = (toolUseId: string, name: string, text: string): ToolResultEvent => ({
  type: 'toolResult',
  toolResult: { type: 'toolResult', toolUseId, name, status: 'error', content: [{ type: 'text', text }] },
});

/** A CubePi middleware class with `before_tool_call` (a Wrap handler) and, optionally, `after_tool_call`. */
function policy(name: string, log: string[], blocks: (input: { path?: string }) => boolean, audit = false): Middleware {
  return {
    name,
    setup(registrar) {
      registrar.add(ExecuteToolStage.Wrap, async function* beforeToolCall(context, next) {
        log.push(`${name}.before_tool_call`);
        if (blocks(context.toolUse.input as { path?: string })) {
          yield blocked(context.toolUse.toolUseId, context.toolUse.name, `blocked by ${name}`);
          return;
        }
        yield* next();
      });
      if (audit) {
        registrar.add(
          ExecuteToolStage.Output,
          afterToolCall(function afterToolCallHook(result) {
            log.push(`${name}.after_tool_call ${result.toolResult.status}`);
            return undefined;
          }),
        );
      }
    },
  };
}

describe('CubePi composition rules, ported', () => {
  it('before_tool_call: the first block stops the rest, and AuditLogger.after_tool_call still fires', async () => {
    const log: string[] = [];
    let quota = 1;
    const registry = new MiddlewareRegistry();
    // Agent(middleware=[RateLimiter(), SafetyFilter(), AuditLogger()])
    registry.use(policy('RateLimiter', log, () => quota-- <= 0));
    registry.use(policy('SafetyFilter', log, (input) => input.path === '/'));
    registry.use(policy('AuditLogger', log, () => false, true));
    const rm = new ScriptedTool({ name: 'rm' });
    const model = new ScriptedModel([
      toolUseTurn([{ name: 'rm', input: { path: '/' }, toolUseId: 'a' }]),
      toolUseTurn([{ name: 'rm', input: { path: 'build/cache' }, toolUseId: 'b' }]),
      textTurn('Nothing was removed.'),
    ]);
    const agent = new Agent({ model, tools: [rm], registry });
    await agent.invoke('Clean up.');
    expect([log, rm.calls.length, [agent.messages[2], agent.messages[4]].map((message) => message?.content[0])]).toEqual([
      [
        'RateLimiter.before_tool_call',
        'SafetyFilter.before_tool_call',
        'AuditLogger.after_tool_call error',
        'RateLimiter.before_tool_call',
        'AuditLogger.after_tool_call error',
      ],
      0,
      [
        { type: 'toolResult', toolUseId: 'a', name: 'rm', status: 'error', content: [{ type: 'text', text: 'blocked by SafetyFilter' }] },
        { type: 'toolResult', toolUseId: 'b', name: 'rm', status: 'error', content: [{ type: 'text', text: 'blocked by RateLimiter' }] },
      ],
    ]);
  });

  it('after_tool_call: an early middleware marks the result, a later one sanitises its content, and both fields survive', async () => {
    const registry = new MiddlewareRegistry();
    // Agent(middleware=[RichDetails(), Sanitiser()]): the later one wins the fields it sets.
    registry.add(
      ExecuteToolStage.Output,
      afterToolCall(function richDetails(result) {
        return { status: 'error', content: [{ type: 'text', text: `raw: ${resultText(result.toolResult)}` }] };
      }),
    );
    registry.add(
      ExecuteToolStage.Output,
      afterToolCall(function sanitiser() {
        return { content: [{ type: 'text', text: 'The lookup failed; details are in the audit log.' }] };
      }),
    );
    const model = new ScriptedModel([toolUseTurn([{ name: 'lookup', input: {}, toolUseId: 'l' }]), textTurn('ok')]);
    const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'lookup', respond: () => 'card 4111 1111' })], registry });
    await agent.invoke('Look it up.');
    expect(agent.messages[2]?.content).toEqual([
      {
        type: 'toolResult',
        toolUseId: 'l',
        name: 'lookup',
        status: 'error',
        content: [{ type: 'text', text: 'The lookup failed; details are in the audit log.' }],
      },
    ]);
  });

  it('transform_context chains (SlidingWindow, then InjectSummary) and convert_to_llm runs only the last, the history untouched', async () => {
    const registry = new MiddlewareRegistry();
    const seen: number[] = [];
    // Agent(middleware=[SlidingWindow(max_messages=2), InjectSummary(), WireA(), WireB()])
    registry.add(InvokeModelStage.Input, function slidingWindow(context) {
      return { ...context, messages: context.messages.slice(-2) };
    });
    registry.add(InvokeModelStage.Input, function injectSummary(context) {
      seen.push(context.messages.length);
      return { ...context, messages: [say('user', '(summary of earlier turns)'), ...context.messages] };
    });
    const wire = (name: string) =>
      function convertToLlm(context: InvokeModelContext): InvokeModelContext {
        return { ...context, messages: [...context.messages, say('user', `(wire format ${name})`)] };
      };
    registry.add(InvokeModelStage.Input, wire('A'), { id: 'convert_to_llm', replace: true });
    registry.add(InvokeModelStage.Input, wire('B'), { id: 'convert_to_llm', replace: true });
    const model = new ScriptedModel([textTurn('Fine.')]);
    const agent = new Agent({
      model,
      registry,
      messages: [say('user', 'one'), say('assistant', 'two'), say('user', 'three'), say('assistant', 'four')],
    });
    await agent.invoke('five');
    expect([seen, model.calls[0]?.request.messages.map(textOf), agent.messages.map(textOf)]).toEqual([
      [2],
      ['(summary of earlier turns)', 'four', 'five', '(wire format B)'],
      ['one', 'two', 'three', 'four', 'five', 'Fine.'],
    ]);
  });

  it('after_model_response: a validator sending the model back is not undone by a logger after it deciding natural', async () => {
    const registry = new MiddlewareRegistry();
    const logged: string[] = [];
    // Agent(middleware=[StructuredOutputValidator(), EventLogger()]). CubePi lets the last decision win, so there the
    // logger's 'natural' would end the run; here decisions merge by rank and 'loopToModel' outranks 'natural'.
    registry.add(
      TurnStage.Wrap,
      turnAction(function structuredOutputValidator(context) {
        return context.ending && !textOf(context.turn.message).startsWith('{')
          ? { decision: 'loopToModel', inject: [say('user', 'JSON only.')] }
          : undefined;
      }),
    );
    registry.add(
      TurnStage.Wrap,
      turnAction(function eventLogger(context) {
        logged.push(textOf(context.turn.message));
        return { decision: 'natural' };
      }),
    );
    const model = new ScriptedModel([textTurn('Tuesday.'), textTurn('{"day":"Tuesday"}')]);
    const agent = new Agent({ model, registry });
    const result = await agent.invoke('Which day?');
    expect([result.stopReason, logged, agent.messages.map(textOf)]).toEqual([
      'endTurn',
      ['Tuesday.', '{"day":"Tuesday"}'],
      ['Which day?', 'Tuesday.', 'JSON only.', '{"day":"Tuesday"}'],
    ]);
  });

  it('AfterToolCallResult.terminate: a tool result ends the run after the tool batch', async () => {
    const registry = new MiddlewareRegistry();
    // class StopOnSubmit(Middleware): after_tool_call returns AfterToolCallResult(terminate=True) for the submit tool's results.
    registry.add(
      ExecuteToolStage.Output,
      afterToolCall(function stopOnSubmit(result) {
        return resultText(result.toolResult).startsWith('submitted') ? { terminate: true } : undefined;
      }),
    );
    const submit = new ScriptedTool({ name: 'submit', respond: () => 'submitted #7' });
    const check = new ScriptedTool({ name: 'check', respond: () => 'all good' });
    const model = new ScriptedModel([
      toolUseTurn([
        { name: 'submit', input: {}, toolUseId: 's' },
        { name: 'check', input: {}, toolUseId: 'c' },
      ]),
    ]);
    const agent = new Agent({ model, registry, tools: [submit, check] });
    const result = await agent.invoke('Submit and check.');
    expect([result.stopReason, result.stoppedBy, check.calls.length, model.calls.length, agent.messages.length]).toEqual([
      'stopped',
      { handler: 'terminate', reason: 'submit' },
      1,
      1,
      3,
    ]);
  });
});
