import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import {
  Agent,
  History,
  restoreLoop,
  snapshotLoop,
  type HaltedTurn,
  type LoopState,
  type Message,
  type ToolResultBlock,
} from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { caught, fields } from '../assertions';
import { ZERO, user } from './fixtures';

const turnMessage: Message = {
  role: 'assistant',
  content: [
    { type: 'toolUse', toolUseId: 'ls-1', name: 'ls', input: {} },
    { type: 'toolUse', toolUseId: 'rm-1', name: 'rm', input: { path: 'a.txt' } },
  ],
};
const listed: ToolResultBlock = {
  type: 'toolResult',
  toolUseId: 'ls-1',
  name: 'ls',
  status: 'success',
  content: [{ type: 'text', text: 'a.txt' }],
};
const approve = { id: 'executeTool:rm-1:approve', name: 'approve', reason: 'Deletes a.txt' };
const halted: HaltedTurn = { interrupts: [approve], message: turnMessage, results: [listed] };
const usage = { inputTokens: 7, outputTokens: 2, totalTokens: 9 };
const state: LoopState = { messages: [user('Tidy up.'), turnMessage], modelState: { step: 2 }, usage, halted };

/** An approval asked of the caller in `rm`, answered through resume. */
const rm = () =>
  new ScriptedTool({
    name: 'rm',
    respond: (input, context) => (context.interrupt({ name: 'approve', reason: 'Deletes a.txt' }).response === true ? 'gone' : 'kept'),
  });

describe('snapshotLoop', () => {
  describe('with a loop halted in a turn', () => {
    it('writes the agent snapshot of its history, model state, usage and halted turn, frozen', () => {
      const snapshot = snapshotLoop(state);
      expect({ snapshot, frozen: Object.isFrozen(snapshot) }).toEqual({
        snapshot: {
          version: 1,
          messages: [user('Tidy up.'), turnMessage],
          modelState: { step: 2 },
          usage,
          halted: {
            interrupts: [approve],
            responses: {},
            input: [],
            turn: { message: turnMessage, results: [listed] },
            invocationState: {},
          },
        },
        frozen: true,
      });
    });

    it('writes a snapshot the reference agent resumes, answering the question and running the pending tool', async () => {
      const agent = new Agent({
        model: new ScriptedModel([textTurn('Tidied.')]),
        tools: [new ScriptedTool({ name: 'ls' }), rm()],
        snapshot: snapshotLoop(state),
      });
      const result = await agent.resume({ [approve.id]: true });
      expect({ stopReason: result.stopReason, results: agent.messages[2] }).toEqual({
        stopReason: 'endTurn',
        results: {
          role: 'user',
          content: [
            listed,
            { type: 'toolResult', toolUseId: 'rm-1', name: 'rm', status: 'success', content: [{ type: 'text', text: 'gone' }] },
          ],
        },
      });
    });
  });

  describe('with a state that could not be resumed', () => {
    it.each([
      ['no messages', { ...state, messages: undefined }, 'state must be { messages, modelState, usage, halted? }'],
      [
        'a halted turn without interrupts',
        { ...state, halted: { ...halted, interrupts: [] } },
        'state.halted.interrupts must be the non-empty array',
      ],
      ['a result given twice', { ...state, halted: { ...halted, results: [listed, listed] } }, 'answers tool use "ls-1" twice'],
      [
        'a result of another turn',
        { ...state, halted: { ...halted, results: [{ ...listed, toolUseId: 'cat-1' }] } },
        'must name a tool use of',
      ],
      ['a model state that is not JSON', { ...state, modelState: { at: 1n } }, 'cannot be saved as JSON'],
    ])('throws ERR_INVALID_OPTIONS for %s', (_case, bad, text) => {
      const error = caught(() => snapshotLoop(bad as unknown as LoopState));
      expect({ code: error.code, says: error.message.includes(text) }).toEqual({ code: 'ERR_INVALID_OPTIONS', says: true });
    });
  });
});

describe('restoreLoop', () => {
  describe('with a snapshot of a halted loop', () => {
    it('reads back the history, model state, usage, halted turn and the tool uses still pending', () => {
      const restored = restoreLoop(JSON.parse(JSON.stringify(snapshotLoop(state))));
      expect({
        messages: restored.history.messages,
        modelState: restored.modelState,
        usage: restored.usage,
        halted: restored.halted,
        pending: restored.pending,
        history: restored.history instanceof History,
        frozen: [restored, restored.halted, restored.pending].every((part) => Object.isFrozen(part)),
      }).toEqual({
        messages: [user('Tidy up.'), turnMessage],
        modelState: { step: 2 },
        usage,
        halted: { ...halted, responses: {} },
        pending: [turnMessage.content[1]],
        history: true,
        frozen: true,
      });
    });
  });

  describe('with the snapshot of a reference agent halted in its tool calls', () => {
    it('gives the halted turn and the tool use to run again', async () => {
      const agent = new Agent({
        model: new ScriptedModel([
          toolUseTurn([
            { name: 'ls', input: {}, toolUseId: 'ls-1' },
            { name: 'rm', input: { path: 'a.txt' }, toolUseId: 'rm-1' },
          ]),
        ]),
        tools: [new ScriptedTool({ name: 'ls', outcomes: [{ value: 'a.txt' }] }), rm()],
      });
      await agent.invoke('Tidy up.');
      const restored = restoreLoop(agent.snapshot());
      expect({ halted: restored.halted, pending: restored.pending, usage: restored.usage }).toEqual({
        halted: { ...halted, responses: {} },
        pending: [turnMessage.content[1]],
        usage: ZERO,
      });
    });
  });

  describe('with a snapshot that is not one', () => {
    it('throws ERR_SNAPSHOT_VERSION for a later format', () => {
      const error = caught(() => restoreLoop({ ...snapshotLoop(state), version: 2 }));
      expect(fields(error).code).toBe('ERR_SNAPSHOT_VERSION');
    });

    it('throws ERR_INVALID_OPTIONS for a run halted before any turn', () => {
      const snapshot = snapshotLoop({ ...state, halted: undefined });
      const error = caught(() =>
        restoreLoop({ ...snapshot, halted: { interrupts: [approve], responses: {}, input: [], turn: null, invocationState: {} } }),
      );
      expect({ code: error.code, says: error.message.includes('the snapshot halted before a turn') }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        says: true,
      });
    });

    it('returns a state or throws a MiddlewareError for any JSON value, and never changes it', () => {
      const snapshot = fc.oneof(
        fc.jsonValue(),
        fc.record({
          version: fc.constant(1),
          messages: fc.jsonValue(),
          modelState: fc.jsonValue(),
          usage: fc.jsonValue(),
          halted: fc.jsonValue(),
        }),
      );
      fc.assert(
        fc.property(snapshot, (value) => {
          const before = JSON.stringify(value);
          try {
            restoreLoop(value);
          } catch (error) {
            expect(MiddlewareError.isInstance(error)).toBe(true);
          }
          expect(JSON.stringify(value)).toBe(before);
        }),
        { numRuns: 60 },
      );
    });
  });
});
