import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  TurnStage,
  isTurnResult,
  mergeTurnAction,
  readTurnResult,
  turnAction,
  turnTerminal,
  type TurnAction,
  type TurnContext,
  type TurnResultEvent,
} from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import type { TurnDecision } from '../../src/agent/types/stages';
import { ZERO, assistant, user } from './fixtures';
import { caught } from '../assertions';

const natural: TurnResultEvent = { type: 'turnResult', decision: 'natural', inject: [], onRunEnd: [] };
const decided = (decision: TurnDecision, extra: Partial<TurnResultEvent> = {}): TurnResultEvent => ({
  ...natural,
  decision,
  ...(decision === 'stop' ? { stoppedBy: { handler: 'earlier' } } : {}),
  ...extra,
});

/** What a MiddlewareError says, by the fields MW-032 makes normative. */
function failure(run: () => unknown): unknown {
  try {
    run();
    return 'no error';
  } catch (error) {
    if (!MiddlewareError.isInstance(error)) throw error;
    return { code: error.code, stage: error.stage };
  }
}

describe('turnTerminal', () => {
  it('yields one natural decision with no messages, a new frozen object per call', async () => {
    const first: TurnResultEvent[] = [];
    const second: TurnResultEvent[] = [];
    const context = {} as TurnContext;
    for await (const event of turnTerminal(context, undefined as never)) first.push(event);
    for await (const event of turnTerminal(context, undefined as never)) second.push(event);
    expect([first, Object.isFrozen(first[0]), first[0] === second[0], isTurnResult(first[0])]).toEqual([[natural], true, false, true]);
  });
});

describe('mergeTurnAction', () => {
  describe('decisions', () => {
    it.each<[TurnDecision, TurnDecision | undefined, TurnDecision]>([
      ['natural', undefined, 'natural'],
      ['natural', 'natural', 'natural'],
      ['natural', 'loopToModel', 'loopToModel'],
      ['natural', 'stop', 'stop'],
      ['loopToModel', 'natural', 'loopToModel'],
      ['loopToModel', 'stop', 'stop'],
      ['stop', 'natural', 'stop'],
      ['stop', 'loopToModel', 'stop'],
    ])('merges %s reached so far with %s to %s', (before, decision, after) => {
      const action: TurnAction = decision === undefined ? {} : { decision };
      expect(mergeTurnAction(decided(before), action, 'handler').decision).toEqual(after);
    });
  });

  describe('messages and stoppedBy', () => {
    it('concatenates inject and onRunEnd, what was decided first', () => {
      const merged = mergeTurnAction(
        decided('natural', { inject: [user('a')], onRunEnd: [assistant('x')] }),
        { inject: [user('b')], onRunEnd: [assistant('y')] },
        'second',
      );
      expect(merged).toEqual({
        type: 'turnResult',
        decision: 'natural',
        inject: [user('a'), user('b')],
        onRunEnd: [assistant('x'), assistant('y')],
      });
    });

    it('names the handler and its reason when this action stops the run', () => {
      expect(mergeTurnAction(natural, { decision: 'stop', reason: 'ten turns' }, 'maxTurns')).toEqual({
        ...natural,
        decision: 'stop',
        stoppedBy: { handler: 'maxTurns', reason: 'ten turns' },
      });
    });

    it('keeps the first stopper when a later action stops too', () => {
      expect(mergeTurnAction(decided('stop'), { decision: 'stop', reason: 'me too' }, 'later').stoppedBy).toEqual({ handler: 'earlier' });
    });

    it('takes keys that are absent or undefined as their defaults', () => {
      // What a JavaScript caller may write; TypeScript's exact optional properties forbid it.
      const action = { decision: undefined, inject: undefined, onRunEnd: undefined, reason: undefined } as unknown as TurnAction;
      expect(mergeTurnAction(natural, action, 'handler')).toEqual(natural);
    });

    it('returns the result itself for an undefined action', () => {
      expect(mergeTurnAction(natural, undefined, 'handler')).toBe(natural);
    });

    it('returns a frozen result whose messages are copies, leaving the caller’s messages unfrozen', () => {
      const message = user('note');
      const merged = mergeTurnAction(natural, { inject: [message] }, 'handler');
      expect([Object.isFrozen(merged), Object.isFrozen(merged.inject[0]), Object.isFrozen(message), merged.inject[0]]).toEqual([
        true,
        true,
        false,
        message,
      ]);
    });
  });

  describe('a malformed action', () => {
    it.each<[string, unknown]>([
      ['an unknown decision', { decision: 'sideways' }],
      ['a null decision', { decision: null }],
      ['a decision that is a String object', { decision: new String('stop') }],
      ['inject that is not an array', { inject: user('x') }],
      ['a null inject', { inject: null }],
      ['a null onRunEnd', { onRunEnd: null }],
      ['a message without a role', { onRunEnd: [{ content: [] }] }],
      ['a reason that is not a string', { decision: 'stop', reason: 42 }],
      ['an action that is not an object', 'stop'],
      [
        'a message that refers back to itself',
        {
          inject: [
            (() => {
              const message: Record<string, unknown> = { role: 'user', content: [] };
              message.self = message;
              return message;
            })(),
          ],
        },
      ],
    ])('throws ERR_INVALID_OPTIONS on the turn stage for %s', (_name, action) => {
      expect(failure(() => mergeTurnAction(natural, action as TurnAction, 'handler'))).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'turn',
      });
    });
  });
});

describe('readTurnResult', () => {
  it('returns a frozen copy of a result a loop can act on, its messages copied and frozen', () => {
    const note = user('note');
    const result = {
      type: 'turnResult',
      decision: 'stop',
      inject: [note],
      onRunEnd: [],
      stoppedBy: { handler: 'budget', reason: 'spent' },
    };
    const read = readTurnResult(result);
    expect([read, Object.isFrozen(read), Object.isFrozen(read.inject[0]), read.inject[0] === note, Object.isFrozen(note)]).toEqual([
      result,
      true,
      true,
      false,
      false,
    ]);
  });

  it.each<[string, unknown, string]>([
    ['no result', undefined, 'the result must be a turnResult event, got undefined'],
    ['another event', { type: 'attemptBoundary' }, 'the result must be a turnResult event, got a plain object'],
    [
      'an unknown decision',
      { ...natural, decision: 'sideways' },
      `decision must be 'natural', 'loopToModel' or 'stop', got the string "sideways"`,
    ],
    ['a null decision', { ...natural, decision: null }, `decision must be 'natural', 'loopToModel' or 'stop', got null`],
    ['inject that is not an array', { ...natural, inject: null }, 'inject must be an array of messages, got null'],
    [
      'stoppedBy on a natural decision',
      { ...natural, stoppedBy: { handler: 'h' } },
      "stoppedBy belongs to a 'stop' decision only; this one is 'natural'",
    ],
    [
      'a stop without stoppedBy',
      { ...natural, decision: 'stop' },
      "a 'stop' decision needs stoppedBy: { handler: string, reason?: string } (mergeTurnAction() sets it), got undefined",
    ],
    [
      'a response from the user',
      { ...natural, response: user('hi') },
      "response must be an assistant message { role: 'assistant', content: ContentBlock[] }, got a plain object",
    ],
    [
      'a response that is not an object',
      { ...natural, response: 'hi' },
      `response must be an assistant message { role: 'assistant', content: ContentBlock[] }, got the string "hi"`,
    ],
  ])('throws ERR_INVALID_OPTIONS on the turn stage for %s, naming the field', (_name, result, problem) => {
    expect(() => readTurnResult(result)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'turn', message: `[ERR_INVALID_OPTIONS] TurnStage: ${problem}.` }),
    );
  });

  it('checks the copy of a response, so a response whose content cannot be read is refused on the turn stage', () => {
    const failing = new Error('unreadable');
    const response = {
      role: 'assistant',
      get content(): never {
        throw failing;
      },
    };
    const error = caught(() => readTurnResult({ ...natural, response }));
    expect([error.code, error.stage, error.cause]).toEqual(['ERR_INVALID_OPTIONS', 'turn', failing]);
  });
});

describe('turnAction', () => {
  it('is named after the decide function, or turnAction', () => {
    expect([
      turnAction(function maxTurns() {
        return undefined;
      }).name,
      turnAction(() => undefined).name,
    ]).toEqual(['maxTurns', 'turnAction']);
  });

  it('throws ERR_INVALID_OPTIONS when decide is not a function', () => {
    expect(failure(() => turnAction('stop' as never))).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: 'turn' });
  });

  it('gives decide the turn and the decision of the layers inside, and merges under the registered name', async () => {
    const registry = new MiddlewareRegistry();
    const seen: string[] = [];
    registry.add(
      TurnStage.Wrap,
      turnAction((context, inner) => {
        seen.push(`turn ${context.turn.index} inner ${inner.decision}`);
        return { decision: 'stop' };
      }),
      { name: 'outerStop' },
    );
    registry.add(
      TurnStage.Wrap,
      turnAction(function innerLoop() {
        return { decision: 'loopToModel' };
      }),
    );
    const agent = new Agent({ model: new ScriptedModel([textTurn('hi')]), registry });
    const result = await agent.invoke('go');
    expect([seen, result]).toEqual([
      ['turn 1 inner loopToModel'],
      {
        type: 'agentResult',
        stopReason: 'stopped',
        message: assistant('hi'),
        interrupts: [],
        usage: ZERO,
        stoppedBy: { handler: 'outerStop' },
      },
    ]);
  });

  it('passes on a last event that is not a decision, for the core to reject', async () => {
    const registry = new MiddlewareRegistry();
    registry.add(
      TurnStage.Wrap,
      turnAction(() => ({ decision: 'stop' })),
    );
    registry.add(TurnStage.Wrap, async function* chatter() {
      yield { type: 'progress' } as unknown as TurnResultEvent;
    });
    const agent = new Agent({ model: new ScriptedModel([textTurn('hi')]), registry });
    await expect(agent.invoke('go')).rejects.toMatchObject({ code: 'ERR_NO_RESULT', stage: 'turn' });
    expect(agent.messages).toEqual([]);
  });
});

describe('Agent', () => {
  describe('after each turn', () => {
    it('gives TurnStage a frozen context describing the turn, sharing the history', async () => {
      const registry = new MiddlewareRegistry();
      const contexts: TurnContext[] = [];
      registry.add(TurnStage.Input, (context) => {
        contexts.push(context);
        return context;
      });
      const tool = new ScriptedTool({ name: 'clock', outcomes: [{ value: 'noon' }] });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'clock', input: {}, toolUseId: 'c1' }]), textTurn('It is noon.')]),
        tools: [tool],
        registry,
      });
      await agent.invoke('time?');
      const [first, second] = contexts;
      expect({
        frozen: contexts.map((context) => Object.isFrozen(context) && Object.isFrozen(context.turn)),
        first: {
          index: first?.turn.index,
          ending: first?.ending,
          stopReason: first?.turn.stopReason,
          results: first?.turn.toolResults.map((block) => block.toolUseId),
          message: first?.turn.message === agent.messages[1],
        },
        second: {
          index: second?.turn.index,
          ending: second?.ending,
          stopReason: second?.turn.stopReason,
          results: second?.turn.toolResults.length,
          history: second?.messages === agent.messages,
        },
      }).toEqual({
        frozen: [true, true],
        first: { index: 1, ending: false, stopReason: 'toolUse', results: ['c1'], message: true },
        second: { index: 2, ending: true, stopReason: 'endTurn', results: 0, history: true },
      });
    });
  });
});
