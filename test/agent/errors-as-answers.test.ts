import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  AgentStreamStage,
  ExecuteToolStage,
  agentErrorAnswer,
  errorsAsAnswers,
  modelErrorAnswer,
  toolErrorAnswer,
  type AgentStreamContext,
  type ExecuteToolContext,
  type InvokeModelContext,
} from '../../src/agent/index';
import { failingTurn, ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { ZERO } from './fixtures';

type Answer = { readonly result: true; readonly text: string } | { readonly result: false; readonly text: string };
const AskStage = createStage<{ readonly question: string }, Answer, Answer>('ask', { isResult: (event) => event.result });
const OpenStage = createStage<{ readonly question: string }, string>('open');
const toText = (error: unknown): Answer => ({ result: true, text: `answered: ${(error as Error).message}` });

/** Runs `stage` once with `errorsAsAnswers` outermost and `inner` inside it; returns the events or the error. */
async function answered<TEvent>(
  stage: typeof AskStage | typeof OpenStage,
  inner: () => AsyncGenerator<TEvent, void, undefined>,
  critical?: (error: unknown) => boolean,
): Promise<unknown> {
  const registry = new MiddlewareRegistry();
  registry.add(
    stage.Wrap as typeof AskStage.Wrap,
    errorsAsAnswers({ toResult: toText, ...(critical === undefined ? {} : { critical }) }) as never,
  );
  registry.add(stage.Wrap as typeof AskStage.Wrap, inner as never);
  const events: unknown[] = [];
  try {
    for await (const event of registry.invoke(stage as typeof AskStage, { question: 'why?' }, async function* terminal() {
      yield { result: true, text: 'terminal' };
    }))
      events.push(event);
    return events;
  } catch (error) {
    return MiddlewareError.isInstance(error) ? { code: error.code } : error;
  }
}

describe('errorsAsAnswers', () => {
  describe('on any stage', () => {
    it('answers for a throw of the layers inside it with toResult, after what they yielded', async () => {
      const events = await answered(AskStage, async function* failing() {
        yield { result: false, text: 'thinking' };
        throw new Error('model down');
      });
      expect(events).toEqual([
        { result: false, text: 'thinking' },
        { result: true, text: 'answered: model down' },
      ]);
    });

    it('answers in place of a result already forwarded when a layer throws after it', async () => {
      const events = await answered(AskStage, async function* checksAfter(_context: unknown, next: () => AsyncGenerator<Answer>) {
        yield* next();
        throw new Error('the answer is rude');
      } as never);
      expect(events).toEqual([
        { result: true, text: 'terminal' },
        { result: true, text: 'answered: the answer is rude' },
      ]);
    });

    it.each<[string, typeof AskStage | typeof OpenStage, () => AsyncGenerator<unknown, void, undefined>, unknown]>([
      ['nothing', AskStage, async function* silent() {}, [{ result: true, text: 'answered: ' }]],
      [
        'a last event the guard rejects',
        AskStage,
        async function* chatty() {
          yield { result: false, text: 'hmm' };
        },
        [
          { result: false, text: 'hmm' },
          { result: true, text: 'answered: ' },
        ],
      ],
      ['nothing, on a stage without a guard', OpenStage, async function* silent() {}, [{ result: true, text: 'answered: ' }]],
    ])('answers with ERR_NO_RESULT for layers that yield %s', async (_name, stage, inner, expected) => {
      const registry = new MiddlewareRegistry();
      const seen: unknown[] = [];
      registry.add(
        stage.Wrap as typeof AskStage.Wrap,
        errorsAsAnswers({
          toResult: (error) => {
            seen.push({
              code: (error as MiddlewareError).code,
              stage: (error as MiddlewareError).stage,
              phase: (error as MiddlewareError).phase,
              handler: (error as MiddlewareError).handler,
            });
            return { result: true, text: 'answered: ' };
          },
        }),
        { name: 'answers' },
      );
      registry.add(stage.Wrap as typeof AskStage.Wrap, inner as never);
      const events: unknown[] = [];
      for await (const event of registry.invoke(stage as typeof AskStage, { question: 'why?' }, async function* terminal() {}))
        events.push(event);
      expect([events, seen]).toEqual([expected, [{ code: 'ERR_NO_RESULT', stage: stage.name, phase: 'wrap', handler: 'answers' }]]);
    });

    it('lets an error critical picks through, the same object', async () => {
      const fatal = new Error('fatal');
      expect(
        await answered(
          AskStage,
          async function* failing() {
            throw fatal;
          },
          (error) => error === fatal,
        ),
      ).toBe(fatal);
    });

    it('lets an abort through', async () => {
      const registry = new MiddlewareRegistry();
      const controller = new AbortController();
      registry.add(AskStage.Wrap, errorsAsAnswers({ toResult: toText }));
      registry.add(AskStage.Wrap, async function* abortsThenFails() {
        controller.abort('stop');
        throw new Error('after the abort');
      });
      const error = await registry
        .run(AskStage, { question: 'why?' }, async function* terminal() {}, { signal: controller.signal })
        .catch((caught: unknown) => caught);
      expect((error as MiddlewareError).code).toEqual('ERR_ABORTED');
    });

    it.each<[string, unknown]>([
      ['no options', undefined],
      ['a toResult that is not a function', { toResult: 'sorry' }],
      ['a critical that is not a function', { toResult: toText, critical: true }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_name, options) => {
      let thrown: unknown;
      try {
        errorsAsAnswers(options as never);
      } catch (error) {
        thrown = error;
      }
      expect({
        code: (thrown as MiddlewareError).code,
        phase: (thrown as MiddlewareError).phase,
        handler: (thrown as MiddlewareError).handler,
      }).toEqual({ code: 'ERR_INVALID_OPTIONS', phase: 'register', handler: 'errorsAsAnswers' });
    });

    it('is named errorsAsAnswers', () => {
      expect(errorsAsAnswers({ toResult: toText }).name).toEqual('errorsAsAnswers');
    });
  });

  describe('in an agent', () => {
    it('does not answer for a cancelled tool call: the run ends cancelled', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, errorsAsAnswers({ toResult: toolErrorAnswer }));
      const tool = new ScriptedTool({
        name: 'slow',
        respond: (_input, context) =>
          new Promise((_resolve, reject) => {
            context.signal.addEventListener('abort', () => {
              reject(new Error('interrupted'));
            });
          }),
      });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'slow', input: {} }]), textTurn('never')]),
        tools: [tool],
        registry,
      });
      const running = agent.invoke('go');
      await new Promise((resolve) => setTimeout(resolve, 0));
      agent.cancel();
      expect((await running).stopReason).toEqual('cancelled');
    });
  });
});

describe('toolErrorAnswer', () => {
  const context = { toolUse: { name: 'rm', toolUseId: 'r1', input: {} } } as ExecuteToolContext;

  it('answers as the terminal does for a tool that throws, keeping the error, frozen', () => {
    const error = new Error('no dry run');
    const answer = toolErrorAnswer(error, context);
    expect([answer, answer.error === error, Object.isFrozen(answer) && Object.isFrozen(answer.toolResult)]).toEqual([
      {
        type: 'toolResult',
        toolResult: {
          type: 'toolResult',
          toolUseId: 'r1',
          name: 'rm',
          status: 'error',
          content: [{ type: 'text', text: 'Tool "rm" failed: no dry run' }],
        },
        error,
      },
      true,
      true,
    ]);
  });

  it('keeps the error key for a thrown undefined', () => {
    expect('error' in toolErrorAnswer(undefined, context)).toEqual(true);
  });
});

describe('modelErrorAnswer', () => {
  it("answers with the error's message as the assistant's reply, ending the turn, frozen", () => {
    const answer = modelErrorAnswer(new Error('The input was flagged.'), {} as InvokeModelContext);
    expect([answer, Object.isFrozen(answer.message.content)]).toEqual([
      {
        type: 'modelResult',
        message: { role: 'assistant', content: [{ type: 'text', text: 'The input was flagged.' }] },
        stopReason: 'endTurn',
        usage: ZERO,
      },
      true,
    ]);
  });
});

describe('agentErrorAnswer', () => {
  it("answers with the error's message as the run's reply, no interrupts, no tokens, frozen", () => {
    const answer = agentErrorAnswer(new Error('I cannot help with passwords.'), {} as AgentStreamContext);
    expect([answer, Object.isFrozen(answer.message?.content), Object.isFrozen(answer.interrupts)]).toEqual([
      {
        type: 'agentResult',
        stopReason: 'endTurn',
        message: { role: 'assistant', content: [{ type: 'text', text: 'I cannot help with passwords.' }] },
        interrupts: [],
        usage: ZERO,
      },
      true,
      true,
    ]);
  });

  describe('on AgentStreamStage, for a run that fails after a tool call', () => {
    it('keeps the history as it was before the run: no input, no tool call, no answer', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, errorsAsAnswers({ toResult: agentErrorAnswer }));
      const model = new ScriptedModel([
        textTurn('Hello.'),
        toolUseTurn([{ name: 'lookup', input: {} }]),
        failingTurn(new Error('overloaded')),
      ]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'lookup' })], registry });
      await agent.invoke('Hi.');
      const result = await agent.invoke('Look it up.');
      expect([result.stopReason, result.message, agent.messages.length, agent.messages.at(-1)]).toEqual([
        'endTurn',
        { role: 'assistant', content: [{ type: 'text', text: 'overloaded' }] },
        2,
        { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
      ]);
    });
  });
});
