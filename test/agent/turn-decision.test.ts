import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import {
  History,
  TurnStage,
  createTurnContext,
  decideTurn,
  endsRun,
  settleTurn,
  turnAction,
  type TurnContextParts,
  type TurnInfo,
  type TurnResultEvent,
} from '../../src/agent/index';
import type { TurnDecision } from '../../src/agent/types/stages';
import { caught, failure, fields } from '../assertions';
import { assistant, user } from './fixtures';

const toolResult = {
  type: 'toolResult',
  toolUseId: 't1',
  name: 'ls',
  status: 'success',
  content: [{ type: 'text', text: 'a.txt' }],
} as const;
const turnWith = (toolResults: TurnInfo['toolResults']): TurnInfo => ({
  index: 1,
  message: assistant('Done.'),
  toolResults,
  stopReason: 'endTurn',
});
const usage = { inputTokens: 3, outputTokens: 2, totalTokens: 5 };

describe('createTurnContext', () => {
  describe('with the parts of a completed turn', () => {
    it('builds the frozen context, ending exactly when the turn ran no tools, sharing the invocation state', () => {
      const invocationState = { seen: 0 };
      const parts: TurnContextParts = { messages: [user('Hi'), assistant('Done.')], turn: turnWith([]), usage, invocationState };
      const ended = createTurnContext(parts);
      const working = createTurnContext({ ...parts, turn: turnWith([toolResult]), agent: { name: 'a', sessionId: undefined, tools: [] } });
      expect({
        ended,
        endings: [ended.ending, working.ending],
        agent: working.agent,
        frozen: [ended, ended.messages, ended.messages[0], ended.turn, ended.usage].every((part) => Object.isFrozen(part)),
        shared: ended.invocationState === invocationState && !Object.isFrozen(invocationState),
        usageCopied: ended.usage !== usage,
      }).toEqual({
        ended: { messages: parts.messages, turn: parts.turn, ending: true, usage, invocationState },
        endings: [true, false],
        agent: { name: 'a', sessionId: undefined, tools: [] },
        frozen: true,
        shared: true,
        usageCopied: true,
      });
    });
  });

  describe('with malformed parts', () => {
    it.each([
      ['parts that are not an object', null, 'parts must be { messages, turn, usage, invocationState }'],
      ['messages that are not an array', { messages: 'hi' }, 'messages must be an array of messages'],
      ['a turn index of 0', { turn: { ...turnWith([]), index: 0 } }, 'turn must be { index: 1, 2, ..., message'],
      ['tool results that are not an array', { turn: { ...turnWith([]), toolResults: null } }, 'turn must be { index: 1, 2, ..., message'],
      ['no invocation state', { invocationState: undefined }, 'invocationState must be an object'],
      ['usage that is not counted', { usage: { inputTokens: 1 } }, 'usage must be { inputTokens, outputTokens, totalTokens }'],
    ])('throws ERR_INVALID_OPTIONS for %s', (_case, change, text) => {
      const valid = { messages: [], turn: turnWith([]), usage, invocationState: {} };
      const parts = change === null ? null : { ...valid, ...change };
      const error = caught(() => createTurnContext(parts as unknown as TurnContextParts));
      expect({ code: error.code, says: error.message.includes(text) }).toEqual({ code: 'ERR_INVALID_OPTIONS', says: true });
    });
  });
});

describe('decideTurn', () => {
  const context = createTurnContext({ messages: [user('Hi')], turn: turnWith([toolResult]), usage, invocationState: {} });

  describe('with no handler', () => {
    it("returns turnTerminal's natural decision, checked and frozen", async () => {
      const decided = await decideTurn(new MiddlewareRegistry(), context);
      expect({ decided, frozen: Object.isFrozen(decided) }).toEqual({
        decided: { type: 'turnResult', decision: 'natural', inject: [], onRunEnd: [] },
        frozen: true,
      });
    });
  });

  describe('with handlers on TurnStage', () => {
    it('runs them on the context given and returns their merged decision', async () => {
      const registry = new MiddlewareRegistry();
      const seen: unknown[] = [];
      registry.add(
        TurnStage.Wrap,
        turnAction(function budget(turnContext) {
          seen.push([turnContext.usage.totalTokens, turnContext.ending]);
          return { decision: 'stop', reason: 'over budget', onRunEnd: [assistant('Stopped.')] };
        }),
      );
      const decided = await decideTurn(registry, context, { signal: new AbortController().signal });
      expect({ decided, seen }).toEqual({
        decided: {
          type: 'turnResult',
          decision: 'stop',
          inject: [],
          onRunEnd: [assistant('Stopped.')],
          stoppedBy: { handler: 'budget', reason: 'over budget' },
        },
        seen: [[5, false]],
      });
    });

    it('rejects with ERR_INVALID_OPTIONS for a result no loop may act on', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(TurnStage.Output, (result) => result.replace({ ...result.value, decision: 'later' as TurnDecision }));
      const error = await failure(decideTurn(registry, context));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: 'turn', phase: undefined, handler: undefined });
    });

    it("rejects with a handler's error as it was thrown", async () => {
      const registry = new MiddlewareRegistry();
      const thrown = new Error('decider down');
      registry.add(TurnStage.Input, () => {
        throw thrown;
      });
      const error = await failure(decideTurn(registry, context));
      expect({ same: error === thrown, middleware: MiddlewareError.isInstance(error) }).toEqual({ same: true, middleware: false });
    });
  });
});

describe('endsRun', () => {
  const natural: TurnResultEvent = { type: 'turnResult', decision: 'natural', inject: [], onRunEnd: [] };
  const stop: TurnResultEvent = { ...natural, decision: 'stop', stoppedBy: { handler: 'h' } };
  const loop: TurnResultEvent = { ...natural, decision: 'loopToModel' };
  const ending = createTurnContext({ messages: [], turn: turnWith([]), usage, invocationState: {} });
  const working = createTurnContext({ messages: [], turn: turnWith([toolResult]), usage, invocationState: {} });

  it.each([
    ['natural after a turn without tools', natural, ending, true],
    ['natural after a turn with tools', natural, working, false],
    ['stop after a turn with tools', stop, working, true],
    ['loopToModel after a turn without tools', loop, ending, false],
  ])('says whether %s ends the run', (_case, decided, context, ends) => {
    expect(endsRun(decided, context)).toBe(ends);
  });
});

describe('settleTurn', () => {
  const asked = { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 't1', name: 'ls', input: {} }] } as const;
  const answered = { role: 'user', content: [toolResult] } as const;
  /** A history after a turn that ran `ls`, and its TurnStage context. */
  const afterToolTurn = () => {
    const history = new History([user('List the files.'), asked, answered]);
    const turn: TurnInfo = { index: 1, message: asked, toolResults: [toolResult], stopReason: 'toolUse' };
    return { history, context: createTurnContext({ messages: history.messages, turn, usage, invocationState: {} }) };
  };

  describe('with handlers that replace the response, inject and add closing messages', () => {
    it("puts the response in the turn's place, appends inject after the results, leaves onRunEnd to the loop, and says the run ends", async () => {
      const registry = new MiddlewareRegistry();
      const narrated = { role: 'assistant', content: [{ type: 'text', text: 'Listing.' }, ...asked.content] } as const;
      registry.add(
        TurnStage.Wrap,
        turnAction(function narrator() {
          return { decision: 'stop', reason: 'listed', response: narrated, inject: [user('Noted.')], onRunEnd: [assistant('Bye.')] };
        }),
      );
      const { history, context } = afterToolTurn();
      const settled = await settleTurn(registry, history, context);
      expect({ settled, frozen: Object.isFrozen(settled), history: history.messages }).toEqual({
        settled: {
          type: 'turnResult',
          decision: 'stop',
          inject: [user('Noted.')],
          onRunEnd: [assistant('Bye.')],
          stoppedBy: { handler: 'narrator', reason: 'listed' },
          response: narrated,
          ends: true,
        },
        frozen: true,
        history: [user('List the files.'), narrated, answered, user('Noted.')],
      });
    });
  });

  describe('with no handler', () => {
    it('leaves the history as it was and goes on after a turn that ran tools', async () => {
      const { history, context } = afterToolTurn();
      const before = history.messages;
      const settled = await settleTurn(new MiddlewareRegistry(), history, context);
      expect({ ends: settled.ends, same: history.messages === before }).toEqual({ ends: false, same: true });
    });
  });

  describe('when the decision fails', () => {
    it("rejects with the handler's error, the history untouched", async () => {
      const registry = new MiddlewareRegistry();
      const thrown = new Error('decider down');
      registry.add(TurnStage.Input, () => {
        throw thrown;
      });
      const { history, context } = afterToolTurn();
      const before = history.messages;
      const error = await failure(settleTurn(registry, history, context));
      expect({ same: error === thrown, untouched: history.messages === before }).toEqual({ same: true, untouched: true });
    });
  });

  describe('with a history that is not a History', () => {
    it.each([
      ['an array of messages', [user('Hi')]],
      ['an object without replace', { messages: [], append: () => undefined }],
    ])('rejects with ERR_INVALID_OPTIONS for %s, before any TurnStage invoke', async (_case, history) => {
      const registry = new MiddlewareRegistry();
      const invoked: string[] = [];
      registry.add(TurnStage.Input, (turnContext) => {
        invoked.push('turn');
        return turnContext;
      });
      const error = await failure(settleTurn(registry, history as unknown as History, afterToolTurn().context));
      expect({ ...fields(error), says: (error as Error).message.includes('history must be a History'), invoked }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'turn',
        phase: undefined,
        handler: undefined,
        says: true,
        invoked: [],
      });
    });
  });
});
