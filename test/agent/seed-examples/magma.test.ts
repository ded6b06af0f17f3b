/**
 * Magma's middleware failure rules, ported: a `preToolExecution` middleware
 * that throws makes its error the tool's response and the model regenerates
 * its completion; a `preCompletion` one makes its error the agent's answer;
 * a critical one still fails; `postProcess` changes only what the caller
 * gets, never the history. And `onMainFinish`: a final answer its check
 * rejects is generated again with the error as context, up to 5 times, the
 * tools not run again, then critical fails and non-critical keeps the last.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type MiddlewareError } from '../../../src/core/index';
import {
  Agent,
  AgentStreamStage,
  ExecuteToolStage,
  InvokeModelStage,
  agentErrorAnswer,
  checkFinalAnswer,
  errorsAsAnswers,
  modelErrorAnswer,
  toolErrorAnswer,
  type Message,
} from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';

const textOf = (message: Message | undefined): string =>
  (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');

/** An error Magma would flag critical: it must reach the caller. */
class PolicyBreach extends Error {}

/** Magma's middleware, on every tool call and every completion: errors become answers, critical ones propagate. */
function magmaPolicies(registry: MiddlewareRegistry): void {
  registry.add(ExecuteToolStage.Wrap, errorsAsAnswers({ toResult: toolErrorAnswer, critical: (error) => error instanceof PolicyBreach }), {
    order: -100,
  });
  registry.add(InvokeModelStage.Wrap, errorsAsAnswers({ toResult: modelErrorAnswer, critical: (error) => error instanceof PolicyBreach }), {
    order: -100,
  });
}

describe('Magma middleware failure rules, ported', () => {
  it('answers for a tool with the error its preToolExecution check throws, and the model regenerates the call', async () => {
    const registry = new MiddlewareRegistry();
    magmaPolicies(registry);
    // @middleware('preToolExecution')
    registry.add(ExecuteToolStage.Wrap, async function* validateRefund(context, next) {
      const { amount } = context.toolUse.input as { amount: number };
      if (amount > 100) throw new Error(`Refunds over 100 EUR need a manager; ${amount} EUR was asked.`);
      yield* next();
    });
    const refund = new ScriptedTool({ name: 'refund', respond: (input) => ({ refunded: input }) });
    const model = new ScriptedModel([
      toolUseTurn([{ name: 'refund', input: { amount: 250 }, toolUseId: 'r1' }]),
      toolUseTurn([{ name: 'refund', input: { amount: 100 }, toolUseId: 'r2' }]),
      textTurn('Refunded 100 EUR; a manager must approve the rest.'),
    ]);
    const agent = new Agent({ model, tools: [refund], registry });
    const result = await agent.invoke('Refund 250 EUR.');
    expect([
      result.stopReason,
      refund.calls.map((call) => call.input),
      agent.messages[2]?.content,
      model.calls[1]?.request.messages.at(-1),
    ]).toEqual([
      'endTurn',
      [{ amount: 100 }],
      [
        {
          type: 'toolResult',
          toolUseId: 'r1',
          name: 'refund',
          status: 'error',
          content: [{ type: 'text', text: 'Tool "refund" failed: Refunds over 100 EUR need a manager; 250 EUR was asked.' }],
        },
      ],
      agent.messages[2],
    ]);
  });

  it("returns the error of a preCompletion check as the agent's answer, without a completion", async () => {
    const registry = new MiddlewareRegistry();
    magmaPolicies(registry);
    // @middleware('preCompletion')
    registry.add(InvokeModelStage.Wrap, async function* blockSecrets(context, next) {
      if (textOf(context.messages.at(-1)).includes('password')) throw new Error('I cannot help with passwords.');
      yield* next();
    });
    const model = new ScriptedModel([]);
    const agent = new Agent({ model, registry });
    const result = await agent.invoke('What is the admin password?');
    expect([result.stopReason, textOf(result.message), model.calls.length]).toEqual(['endTurn', 'I cannot help with passwords.', 0]);
  });

  it('fails the run on a critical middleware error', async () => {
    const registry = new MiddlewareRegistry();
    magmaPolicies(registry);
    const breach = new PolicyBreach('The account is frozen.');
    registry.add(ExecuteToolStage.Wrap, async function* accountCheck() {
      throw breach;
    });
    const agent = new Agent({
      model: new ScriptedModel([toolUseTurn([{ name: 'refund', input: { amount: 5 } }])]),
      tools: [new ScriptedTool({ name: 'refund' })],
      registry,
    });
    await expect(agent.invoke('Refund 5 EUR.')).rejects.toBe(breach);
    expect(agent.messages).toEqual([]);
  });

  it('translates only what the caller gets in postProcess, keeping the history as the model wrote it', async () => {
    const registry = new MiddlewareRegistry();
    // @middleware('postProcess')
    registry.add(AgentStreamStage.Output, function translateToFrench(result) {
      return result.update((draft) => {
        draft.message = { role: 'assistant', content: [{ type: 'text', text: 'Votre commande est expédiée.' }] };
      });
    });
    const agent = new Agent({ model: new ScriptedModel([textTurn('Your order has shipped.')]), registry });
    const result = await agent.invoke('Where is my order?');
    expect([textOf(result.message), textOf(agent.messages.at(-1))]).toEqual(['Votre commande est expédiée.', 'Your order has shipped.']);
  });
});

/** Magma's onMainFinish check of the demo: the answer must name the order it talks about. */
const mentionsOrder = (critical: boolean) =>
  checkFinalAnswer({
    check: (message) => {
      if (!textOf(message).includes('A-1042')) throw new Error('Name the order number in your answer');
    },
    critical,
  });

describe('Magma onMainFinish, ported as checkFinalAnswer', () => {
  it('regenerates only the last completion with the error as context, without running the tools again', async () => {
    const registry = new MiddlewareRegistry();
    // @middleware('onMainFinish')
    registry.add(InvokeModelStage.Wrap, mentionsOrder(true));
    const lookup = new ScriptedTool({ name: 'lookup', respond: () => ({ order: 'A-1042', status: 'shipped' }) });
    const model = new ScriptedModel([
      toolUseTurn([{ name: 'lookup', input: {} }]),
      textTurn('It has shipped.'),
      textTurn('Order A-1042 has shipped.'),
    ]);
    const agent = new Agent({ model, tools: [lookup], registry });
    const result = await agent.invoke('Where is my order?');
    expect([
      lookup.calls.length,
      model.calls.length,
      textOf(model.calls[2]?.request.messages.at(-1)),
      agent.messages.map((message) => textOf(message) || message.content[0]?.type),
      textOf(result.message),
    ]).toEqual([
      1,
      3,
      'Your answer was rejected: Name the order number in your answer. Answer again.',
      ['Where is my order?', 'toolUse', 'toolResult', 'Order A-1042 has shipped.'],
      'Order A-1042 has shipped.',
    ]);
  });

  it('throws after 5 failed generations when critical, and proceeds with the last one when not', async () => {
    const vague = () => new ScriptedModel(Array.from({ length: 5 }, (_unused, index) => textTurn(`It has shipped (${index + 1}).`)));
    const critical = new MiddlewareRegistry();
    critical.add(InvokeModelStage.Wrap, mentionsOrder(true));
    const failed = await new Agent({ model: vague(), registry: critical }).invoke('Where is my order?').then(
      () => undefined,
      (error: unknown) => error as MiddlewareError,
    );
    const lenient = new MiddlewareRegistry();
    lenient.add(InvokeModelStage.Wrap, mentionsOrder(false));
    const result = await new Agent({ model: vague(), registry: lenient }).invoke('Where is my order?');
    expect([
      failed?.code,
      failed?.handler,
      (failed?.cause as AggregateError).errors.length,
      result.stopReason,
      textOf(result.message),
    ]).toEqual(['ERR_MIDDLEWARE_FAILED', 'checkFinalAnswer', 5, 'endTurn', 'It has shipped (5).']);
  });
});

/** Three Magma middlewares of one hook type, defined out of order: Magma runs them by `order`, least first. */
const MAGMA_HOOKS = [
  { name: 'c', order: 3 },
  { name: 'a', order: 1 },
  { name: 'b', order: 2 },
] as const;

describe("Magma's order, mapped", () => {
  it('runs pre hooks least order first with order as Magma gives it', async () => {
    const log: string[] = [];
    const registry = new MiddlewareRegistry();
    for (const hook of MAGMA_HOOKS) {
      // @middleware('preCompletion', { order })
      registry.add(
        InvokeModelStage.Input,
        (context) => {
          log.push(`preCompletion ${hook.name}`);
          return context;
        },
        { order: hook.order },
      );
      // @middleware('preToolExecution', { order }): the part of a Wrap handler before next()
      registry.add(
        ExecuteToolStage.Wrap,
        async function* preToolExecution(_context, next) {
          log.push(`preToolExecution ${hook.name}`);
          yield* next();
        },
        { order: hook.order },
      );
    }
    const model = new ScriptedModel([toolUseTurn([{ name: 'lookup', input: {} }]), textTurn('Done.')]);
    await new Agent({ model, tools: [new ScriptedTool({ name: 'lookup' })], registry }).invoke('Look it up.');
    expect(log).toEqual([
      'preCompletion a',
      'preCompletion b',
      'preCompletion c',
      'preToolExecution a',
      'preToolExecution b',
      'preToolExecution c',
      'preCompletion a',
      'preCompletion b',
      'preCompletion c',
    ]);
  });

  it('runs after hooks least Magma order first with the order negated', async () => {
    const log: string[] = [];
    const registry = new MiddlewareRegistry();
    for (const hook of MAGMA_HOOKS) {
      // @middleware('onCompletion', { order }): the part of a Wrap handler after next()
      registry.add(
        InvokeModelStage.Wrap,
        async function* onCompletion(_context, next) {
          yield* next();
          log.push(`onCompletion ${hook.name}`);
        },
        { order: -hook.order },
      );
      // @middleware('onToolExecution', { order })
      registry.add(
        ExecuteToolStage.Output,
        (result) => {
          log.push(`onToolExecution ${hook.name}`);
          return result;
        },
        { order: -hook.order },
      );
      // @middleware('postProcess', { order })
      registry.add(
        AgentStreamStage.Output,
        (result) =>
          result.update((draft) => {
            log.push(`postProcess ${hook.name}`);
            for (const block of draft.message?.content ?? []) if (block.type === 'text') block.text += ` ${hook.name}`;
          }),
        { order: -hook.order },
      );
    }
    const model = new ScriptedModel([toolUseTurn([{ name: 'lookup', input: {} }]), textTurn('Done:')]);
    const result = await new Agent({ model, tools: [new ScriptedTool({ name: 'lookup' })], registry }).invoke('Look it up.');
    expect([log, textOf(result.message)]).toEqual([
      [
        'onCompletion a',
        'onCompletion b',
        'onCompletion c',
        'onToolExecution a',
        'onToolExecution b',
        'onToolExecution c',
        'onCompletion a',
        'onCompletion b',
        'onCompletion c',
        'postProcess a',
        'postProcess b',
        'postProcess c',
      ],
      'Done: a b c',
    ]);
  });

  it("runs after hooks greatest Magma order first when Magma's order is given as it is", async () => {
    const log: string[] = [];
    const registry = new MiddlewareRegistry();
    for (const hook of MAGMA_HOOKS)
      registry.add(
        AgentStreamStage.Output,
        (result) => {
          log.push(`postProcess ${hook.name}`);
          return result;
        },
        { order: hook.order },
      );
    await new Agent({ model: new ScriptedModel([textTurn('Done.')]), registry }).invoke('Go.');
    expect(log).toEqual(['postProcess c', 'postProcess b', 'postProcess a']);
  });

  it('runs hooks without an order in definition order, after hooks given their definition index negated', async () => {
    const log: string[] = [];
    const registry = new MiddlewareRegistry();
    ['first', 'second', 'third'].forEach((name, index) => {
      // @middleware('preCompletion') and @middleware('postProcess'), no order: Magma runs them as defined.
      registry.add(InvokeModelStage.Input, (context) => {
        log.push(`preCompletion ${name}`);
        return context;
      });
      registry.add(
        AgentStreamStage.Output,
        (result) => {
          log.push(`postProcess ${name}`);
          return result;
        },
        { order: -index },
      );
    });
    await new Agent({ model: new ScriptedModel([textTurn('Done.')]), registry }).invoke('Go.');
    expect(log).toEqual([
      'preCompletion first',
      'preCompletion second',
      'preCompletion third',
      'postProcess first',
      'postProcess second',
      'postProcess third',
    ]);
  });
});

describe('Magma preCompletion, ported as agentErrorAnswer', () => {
  /** Magma's preCompletion guard of the demo; its error answers for the whole run. */
  function guarded(model: ScriptedModel): Agent {
    const registry = new MiddlewareRegistry();
    registry.add(AgentStreamStage.Wrap, errorsAsAnswers({ toResult: agentErrorAnswer }), { order: -100 });
    // @middleware('preCompletion')
    registry.add(InvokeModelStage.Wrap, async function* blockSecrets(context, next) {
      if (textOf(context.messages.at(-1)).includes('password')) throw new Error('I cannot help with passwords.');
      yield* next();
    });
    return new Agent({ model, registry });
  }

  it('returns the error as the answer and removes the failing user message from the history', async () => {
    const model = new ScriptedModel([textTurn('Hello!'), textTurn('Your order has shipped.')]);
    const agent = guarded(model);
    await agent.invoke('Hi.');
    const refused = await agent.invoke('What is the admin password?');
    const kept = agent.messages.map(textOf);
    await agent.invoke('Where is my order?');
    expect([refused, kept, model.calls.map((call) => call.request.messages.map(textOf)), agent.messages.map(textOf)]).toEqual([
      {
        type: 'agentResult',
        stopReason: 'endTurn',
        message: { role: 'assistant', content: [{ type: 'text', text: 'I cannot help with passwords.' }] },
        interrupts: [],
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      },
      ['Hi.', 'Hello!'],
      [['Hi.'], ['Hi.', 'Hello!', 'Where is my order?']],
      ['Hi.', 'Hello!', 'Where is my order?', 'Your order has shipped.'],
    ]);
  });
});
