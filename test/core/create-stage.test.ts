import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createStage, isPhaseToken, isStage } from '../../src/core/index';
import { caught } from '../assertions';

describe('createStage', () => {
  describe('with a name only', () => {
    it('returns a frozen token with phase tokens pointing back at it', () => {
      const Stage = createStage<{ prompt: string }, string>('invokeModel');
      expect(Stage.name).toBe('invokeModel');
      expect(Object.isFrozen(Stage)).toBe(true);
      expect(Object.isFrozen(Stage.Input)).toBe(true);
      expect({ phase: Stage.Input.phase, stage: Stage.Input.stage }).toEqual({ phase: 'input', stage: Stage });
      expect({ phase: Stage.Wrap.phase, stage: Stage.Wrap.stage }).toEqual({ phase: 'wrap', stage: Stage });
      expect({ phase: Stage.Output.phase, stage: Stage.Output.stage }).toEqual({ phase: 'output', stage: Stage });
      expect([Stage.isResult, Stage.contextSchema, Stage.resultSchema]).toEqual([undefined, undefined, undefined]);
    });

    it('creates distinct stages for the same name', () => {
      const first = createStage<string, string>('same');
      const second = createStage<string, string>('same');
      expect(first).not.toBe(second);
      expect(first.Wrap).not.toBe(second.Wrap);
    });
  });

  describe('with options', () => {
    it('keeps the guard and the schemas it was given', () => {
      const isResult = (event: { type: string }): boolean => event.type === 'result';
      const context = z.object({ prompt: z.string() });
      const result = z.object({ type: z.literal('result') });
      const Stage = createStage<{ prompt: string }, { type: 'result' }, { type: string }>('model', { isResult, context, result });
      expect([Stage.isResult, Stage.contextSchema, Stage.resultSchema]).toEqual([isResult, context, result]);
    });
  });

  describe('with bad input', () => {
    it.each([
      ['an empty name', () => createStage(''), ''],
      ['a non-string name', () => createStage(42 as unknown as string), '42'],
      ['a name that cannot become a string', () => createStage(Object.create(null) as string), 'a plain object'],
    ])('rejects %s with ERR_INVALID_STAGE', (_label, action, stage) => {
      const error = caught(action);
      expect({ code: error.code, stage: error.stage }).toEqual({ code: 'ERR_INVALID_STAGE', stage });
      expect(error.message).toContain('name must be a non-empty string');
    });

    it.each([
      ['isResult', { isResult: 'yes' }, 'options.isResult must be a function, got the string "yes"'],
      ['context', { context: { parse: () => 1 } }, 'options.context must be a schema with safeParse (a zod schema), got a plain object'],
      ['result', { result: 7 }, 'options.result must be a schema with safeParse (a zod schema), got number 7'],
      ['long string isResult', { isResult: 'x'.repeat(45) }, `options.isResult must be a function, got the string "${'x'.repeat(40)}…"`],
      [
        'anonymous function context',
        { context: [() => 1][0] },
        'options.context must be a schema with safeParse (a zod schema), got a function',
      ],
      [
        'named function result',
        { result: function check() {} },
        'options.result must be a schema with safeParse (a zod schema), got a function (check)',
      ],
      ['array result', { result: [1, 2] }, 'options.result must be a schema with safeParse (a zod schema), got an array of length 2'],
      ['promise context', { context: Promise.resolve(1) }, 'options.context must be a schema with safeParse (a zod schema), got a promise'],
      [
        'class instance context',
        { context: new Date(0) },
        'options.context must be a schema with safeParse (a zod schema), got an instance of Date',
      ],
      ['null options object', null, 'options must be an object (or left out), got null'],
      ['string options object', 'strict', 'options must be an object (or left out), got the string "strict"'],
    ])('rejects a malformed %s option naming the stage and the problem', (_label, options, problem) => {
      const error = caught(() => createStage('model', options as never));
      expect({ code: error.code, stage: error.stage, phase: error.phase }).toEqual({
        code: 'ERR_INVALID_STAGE',
        stage: 'model',
        phase: undefined,
      });
      expect(error.message).toBe(`[ERR_INVALID_STAGE] createStage("model"): ${problem}.`);
    });
  });
});

describe('isStage', () => {
  it('recognises stages and rejects their phase tokens and lookalikes', () => {
    const Stage = createStage<string, string>('model');
    const copy = { ...Stage };
    expect([isStage(Stage), isStage(Stage.Wrap), isStage(copy), isStage(null), isStage('model')]).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('isPhaseToken', () => {
  it('recognises phase tokens and rejects stages and copies', () => {
    const Stage = createStage<string, string>('model');
    const copy = { phase: 'wrap', stage: Stage };
    expect([
      isPhaseToken(Stage.Input),
      isPhaseToken(Stage.Output),
      isPhaseToken(Stage),
      isPhaseToken(copy),
      isPhaseToken(undefined),
    ]).toEqual([true, true, false, false, false]);
  });
});
