/**
 * CubePi's hook details, ported: `TurnAction.response` replacing the
 * model's response, and the `signal` its hooks stop on, written the way a
 * CubePi user writes them (a middleware list in list order).
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type Middleware } from '../../../src/core/index';
import { caught } from '../../assertions';
import {
  Agent,
  ExecuteToolStage,
  InvokeModelStage,
  TurnStage,
  afterToolCall,
  mergeTurnAction,
  toolEmulator,
  toolSelector,
  turnAction,
  turnTerminal,
  type Message,
  type TurnResultEvent,
} from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';
import { say, textOf } from './cubepi-messages';

const ZERO = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
const natural: TurnResultEvent = { type: 'turnResult', decision: 'natural', inject: [], onRunEnd: [] };

/** Resolves after `ms`, or rejects with the abort reason as soon as `signal` aborts: I/O a hook awaits. */
function io(signal: AbortSignal, log: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, 60_000);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        log.push(`aborted: ${String(signal.reason)}`);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}

describe('turnAction', () => {
  describe("CubePi's TurnAction.response, in list order", () => {
    it('puts the response of the handler registered last in the history and the result', async () => {
      const seen: string[] = [];
      const registry = new MiddlewareRegistry();
      // Agent(middleware=[ProfanityRedactor(), Signature()]): the later one's response wins.
      registry.add(
        TurnStage.Wrap,
        turnAction(function profanityRedactor(context, decided) {
          seen.push(`redactor sees ${textOf(decided.response ?? context.turn.message)}`);
          return { response: say('assistant', textOf(context.turn.message).replace('darn', '[redacted]')) };
        }),
      );
      registry.add(
        TurnStage.Wrap,
        turnAction(function signature(context) {
          seen.push(`signature sees ${textOf(context.turn.message)}`);
          return { response: say('assistant', `${textOf(context.turn.message).replace('darn', '****')} -- bot`) };
        }),
      );
      const agent = new Agent({ model: new ScriptedModel([textTurn('darn, the answer')]), registry });
      const result = await agent.invoke('go');
      expect([seen, result.message, agent.messages]).toEqual([
        ['signature sees darn, the answer', 'redactor sees ****, the answer -- bot'],
        say('assistant', '****, the answer -- bot'),
        [say('user', 'go'), say('assistant', '****, the answer -- bot')],
      ]);
    });

    it('gives the next model call the replaced message of a turn that ran tools', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(
        TurnStage.Wrap,
        turnAction(function narrator(context) {
          if (context.ending) return undefined;
          return { response: { role: 'assistant', content: [{ type: 'text', text: 'Looking it up.' }, ...context.turn.message.content] } };
        }),
      );
      const model = new ScriptedModel([toolUseTurn([{ name: 'lookup', input: {}, toolUseId: 'l1' }]), textTurn('found')]);
      const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'lookup', respond: () => 'raw' })] });
      await agent.invoke('go');
      const replaced: Message = {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking it up.' },
          { type: 'toolUse', toolUseId: 'l1', name: 'lookup', input: {} },
        ],
      };
      expect([model.calls[1]?.request.messages[1], agent.messages[1]]).toEqual([replaced, replaced]);
    });

    it('refuses a response that drops a tool use of the turn, and keeps the history as it was', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(
        TurnStage.Wrap,
        turnAction(function rewriter() {
          return { response: say('assistant', 'No tools.') };
        }),
      );
      const model = new ScriptedModel([toolUseTurn([{ name: 'lookup', input: {}, toolUseId: 'l1' }]), textTurn('found')]);
      const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'lookup', respond: () => 'raw' })] });
      const error = await agent.invoke('go').catch((caught: unknown) => caught);
      expect([MiddlewareError.isInstance(error) && [error.code, error.stage, error.message], agent.messages]).toEqual([
        [
          'ERR_INVALID_OPTIONS',
          'turn',
          "[ERR_INVALID_OPTIONS] TurnStage: response must keep the turn's tool uses, in order (l1), got none; change the other blocks only.",
        ],
        [],
      ]);
    });
  });

  describe('mergeTurnAction with a response', () => {
    it('keeps the response the result carries over the action’s', () => {
      const inner = mergeTurnAction(natural, { response: say('assistant', 'inner') }, 'inner');
      expect([inner, mergeTurnAction(inner, { response: say('assistant', 'outer') }, 'outer')]).toEqual([
        { ...natural, response: say('assistant', 'inner') },
        { ...natural, response: say('assistant', 'inner') },
      ]);
    });

    it.each([
      ['a user message', say('user', 'hi')],
      ['null', null],
      ['a message without content', { role: 'assistant' }],
    ])('refuses %s as the response', (_label, response) => {
      const thrown = (() => {
        try {
          return mergeTurnAction(natural, { response: response as unknown as Message }, 'bad');
        } catch (error) {
          return error;
        }
      })();
      expect(
        MiddlewareError.isInstance(thrown) && [thrown.code, thrown.stage, thrown.message.includes('response must be an assistant message')],
      ).toEqual(['ERR_INVALID_OPTIONS', 'turn', true]);
    });
  });

  describe('the signal a decider receives', () => {
    it('aborts when the run is cancelled, so a decider waiting on I/O stops', async () => {
      const log: string[] = [];
      let waiting!: () => void;
      const started = new Promise<void>((resolve) => (waiting = resolve));
      const registry = new MiddlewareRegistry();
      registry.add(
        TurnStage.Wrap,
        turnAction(async function auditor(_context, _decided, { signal }) {
          const pending = io(signal, log);
          waiting();
          await pending;
          return undefined;
        }),
      );
      const agent = new Agent({ model: new ScriptedModel([textTurn('answer')]), registry });
      const run = agent.invoke('go');
      await started;
      agent.cancel();
      expect([await run, log, agent.messages]).toEqual([
        { type: 'agentResult', stopReason: 'cancelled', message: undefined, interrupts: [], usage: ZERO },
        ['aborted: Error: The agent run was cancelled.'],
        [],
      ]);
    });
  });
});

describe('afterToolCall', () => {
  describe('the signal a hook receives', () => {
    it('aborts when the run is cancelled, so a hook waiting on I/O stops', async () => {
      const log: string[] = [];
      let waiting!: () => void;
      const started = new Promise<void>((resolve) => (waiting = resolve));
      const registry = new MiddlewareRegistry();
      registry.add(
        ExecuteToolStage.Output,
        afterToolCall(async function auditLog(result, { signal }) {
          const pending = io(signal, log);
          waiting();
          await pending;
          return { content: [{ type: 'text', text: `${result.toolResult.name} audited` }] };
        }),
      );
      const model = new ScriptedModel([toolUseTurn([{ name: 'lookup', input: {} }]), textTurn('found')]);
      const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'lookup', respond: () => 'raw' })] });
      const run = agent.invoke('go');
      await started;
      agent.cancel();
      expect([(await run).stopReason, log.length, model.calls.length, agent.messages]).toEqual(['cancelled', 1, 1, []]);
    });
  });
});

describe('invokeModel on the contexts of every hook', () => {
  describe("CubePi's extra_llm_calls: a middleware list whose hooks call models of their own", () => {
    it('counts each call apart under its caller, the agent usage only its own calls', async () => {
      const usage = (tokens: number) => ({ usage: { inputTokens: tokens, outputTokens: 1, totalTokens: tokens + 1 } });
      const judge = new ScriptedModel([textTurn('ok', usage(7)), textTurn('ok', usage(7))]);
      const registry = new MiddlewareRegistry();
      // transform_context calling a model: the tool selection.
      registry.add(InvokeModelStage.Input, toolSelector({ maxTools: 1 }));
      // before_tool_call calling a model: a safety classifier on the agent's model.
      registry.add(ExecuteToolStage.Wrap, async function* safetyClassifier(context, next) {
        const verdict = await context.invokeModel?.({ caller: 'safetyClassifier', messages: [say('user', 'Safe?')] });
        yield* textOf(verdict?.message) === 'safe' ? next() : [];
      });
      // after_model_response calling a model of its own: a judge.
      registry.add(
        TurnStage.Wrap,
        turnAction(async function judgeAnswer(context) {
          await context.invokeModel?.({ caller: 'judge', model: judge, messages: [say('user', textOf(context.turn.message))] });
          return undefined;
        }),
      );
      // A tool a model plays, counted under the tool it stands in for.
      registry.add(ExecuteToolStage.Wrap, toolEmulator({ model: new ScriptedModel([textTurn('emulated', usage(5))]) }));
      const model = new ScriptedModel([
        textTurn('lookup', usage(3)),
        toolUseTurn([{ name: 'lookup', input: {} }], usage(10)),
        textTurn('safe', usage(2)),
        textTurn('lookup', usage(3)),
        textTurn('done', usage(10)),
      ]);
      const tools = [new ScriptedTool({ name: 'lookup', respond: () => 'raw' }), new ScriptedTool({ name: 'notes', respond: () => 'n' })];
      const agent = new Agent({ model, registry, tools });
      const result = await agent.invoke('go');
      expect([result.stopReason, result.usage, result.middlewareUsage]).toEqual([
        'endTurn',
        { inputTokens: 20, outputTokens: 2, totalTokens: 22 },
        {
          toolSelector: { inputTokens: 6, outputTokens: 2, totalTokens: 8 },
          safetyClassifier: { inputTokens: 2, outputTokens: 1, totalTokens: 3 },
          lookup: { inputTokens: 5, outputTokens: 1, totalTokens: 6 },
          judge: { inputTokens: 14, outputTokens: 2, totalTokens: 16 },
        },
      ]);
    });
  });
});

describe('registry.add with replace: true and no id', () => {
  describe("CubePi's explicit hook overriding a middleware's hook of that name", () => {
    /** A CubePi middleware class whose before_tool_call logs and lets the call run. */
    const logging = (log: string[]): Middleware => ({
      name: 'LoggingMiddleware',
      setup(registrar) {
        registrar.add(ExecuteToolStage.Wrap, async function* beforeToolCall(context, next) {
          log.push(`logged ${context.toolUse.name}`);
          yield* next();
        });
      },
    });

    it("runs the explicit hook in the middleware's place, and the middleware's not at all", async () => {
      const log: string[] = [];
      const registry = new MiddlewareRegistry();
      // Agent(middleware=[LoggingMiddleware()], before_tool_call=my_explicit_hook)
      registry.use(logging(log));
      registry.add(
        ExecuteToolStage.Wrap,
        async function* beforeToolCall(context, next) {
          log.push(`explicit ${context.toolUse.name}`);
          yield* next();
        },
        { replace: true },
      );
      const model = new ScriptedModel([toolUseTurn([{ name: 'lookup', input: {} }]), textTurn('found')]);
      const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'lookup', respond: () => 'raw' })] });
      await agent.invoke('go');
      expect([log, registry.describe(ExecuteToolStage).map(({ name, source }) => `${source} ${name}`)]).toEqual([
        ['explicit lookup'],
        ['registry beforeToolCall'],
      ]);
    });

    it('refuses to choose between two middlewares with a hook of that name', () => {
      const registry = new MiddlewareRegistry();
      registry.use(logging([]));
      registry.use({ ...logging([]), name: 'AuditMiddleware' });
      const error = caught(() =>
        registry.add(
          ExecuteToolStage.Wrap,
          async function* beforeToolCall(_context, next) {
            yield* next();
          },
          { replace: true },
        ),
      );
      expect(MiddlewareError.isInstance(error) && [error.code, error.stage, error.phase, error.handler]).toEqual([
        'ERR_AMBIGUOUS_NAME',
        'executeTool',
        'wrap',
        'beforeToolCall',
      ]);
    });
  });
});

describe('TurnStage terminal', () => {
  it('carries no response of its own', async () => {
    let last: unknown;
    const registry = new MiddlewareRegistry();
    for await (const event of registry.invoke(TurnStage, {} as never, turnTerminal)) last = event;
    expect(last).toEqual(natural);
  });
});
