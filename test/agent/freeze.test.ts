import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { frozenCopy } from '../../src/agent/values/freeze';

/** The error `adopt` throws for the value, as code, stage, message and cause. */
function failure(value: unknown, path?: string): unknown {
  try {
    frozenCopy(value, path);
  } catch (error) {
    const thrown = error as MiddlewareError;
    return { code: thrown.code, stage: thrown.stage, message: thrown.message, cause: thrown.cause };
  }
  return 'no error';
}

const advice = '; pass plain data: arrays and objects without cycles, whose properties read without throwing.';

/** An array nested `depth` levels deep: `[[[...]]]`. */
function nested(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

describe('frozenCopy', () => {
  describe('plain data', () => {
    it('returns a deeply frozen copy and leaves the original unfrozen', () => {
      const original = { list: [1, { deep: true }], 'odd key': 'x' };
      const copy = frozenCopy(original);
      expect([
        copy,
        copy === original,
        Object.isFrozen(copy),
        Object.isFrozen(copy.list),
        Object.isFrozen(copy.list[1]),
        Object.isFrozen(original),
      ]).toEqual([original, false, true, true, true, false]);
    });

    it('copies a value that shares its parts over 60 levels (2^60 paths) by its distinct parts', () => {
      let shared: unknown[] = [0];
      for (let level = 0; level < 60; level++) shared = [shared, shared];
      const copy = frozenCopy(shared);
      expect([Object.isFrozen(copy), copy === shared, copy[0] === copy[1]]).toEqual([true, false, true]);
    });

    it('copies a part met twice in a small value, leaving the original unshared', () => {
      const shared = { n: 1 };
      const copy = frozenCopy({ a: shared, b: [shared] });
      expect([copy, copy.a === shared, Object.isFrozen(copy.b[0])]).toEqual([{ a: { n: 1 }, b: [{ n: 1 }] }, false, true]);
    });

    it('takes frozen values and class instances as they are', () => {
      const frozen = Object.freeze({ n: 1 });
      const instance = new Date(0);
      const copy = frozenCopy({ frozen, instance });
      expect([copy.frozen === frozen, copy.instance === instance, Object.isFrozen(instance)]).toEqual([true, true, false]);
    });

    it('copies a value nested exactly 1000 levels deep', () => {
      expect(Object.isFrozen(frozenCopy(nested(1000)))).toEqual(true);
    });

    it('takes primitives and null inside a value nested 1000 levels deep as they are', () => {
      let value: unknown[] = [0, null, 'leaf', undefined];
      for (let level = 1; level < 1000; level++) value = [value];
      let copy = frozenCopy(value);
      for (let level = 1; level < 1000; level++) copy = copy[0] as unknown[];
      expect(copy).toEqual([0, null, 'leaf', undefined]);
    });
  });

  describe('values that cannot be copied', () => {
    it('reports a cycle with the paths of the part and of the ancestor it refers back to', () => {
      const value: Record<string, unknown> = { list: [{ 'my key': null }] };
      ((value.list as Record<string, unknown>[])[0] as Record<string, unknown>)['my key'] = value;
      expect(failure(value, 'input')).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        message: `[ERR_INVALID_OPTIONS] Agent: input.list[0]["my key"] refers back to input (a cycle)${advice}`,
        cause: undefined,
      });
    });

    it('reports a getter that throws, keeping the thrown value as the cause', () => {
      const thrown = new Error('no access');
      const value = {
        get secret(): string {
          throw thrown;
        },
      };
      expect(failure([value], 'options.messages')).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        message: `[ERR_INVALID_OPTIONS] Agent: reading options.messages[0].secret threw: no access${advice}`,
        cause: thrown,
      });
    });

    it('refuses a value nested deeper than 1000 levels, shortening the path', () => {
      const message = (failure(nested(1001), 'value') as { message: string }).message;
      expect(message).toEqual(
        `[ERR_INVALID_OPTIONS] Agent: value${'[0]'.repeat(10)}…${'[0]'.repeat(10)} is nested deeper than 1000 levels${advice}`,
      );
    });

    it('reports a value that cannot say whether it is frozen, keeping the thrown value as the cause', () => {
      const thrown = new Error('no answer');
      const value = new Proxy(
        {},
        {
          isExtensible(): never {
            throw thrown;
          },
        },
      );
      expect(failure(value, 'input')).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        message: `[ERR_INVALID_OPTIONS] Agent: reading input threw: no answer${advice}`,
        cause: thrown,
      });
    });

    it('refuses a value nested far too deep without overflowing the stack', () => {
      expect((failure(nested(100_000)) as { code: string }).code).toEqual('ERR_INVALID_OPTIONS');
    });

    it('names the root "value" when no path is given', () => {
      const value: unknown[] = [];
      value.push(value);
      expect((failure(value) as { message: string }).message).toEqual(
        `[ERR_INVALID_OPTIONS] Agent: value[0] refers back to value (a cycle)${advice}`,
      );
    });
  });
});
