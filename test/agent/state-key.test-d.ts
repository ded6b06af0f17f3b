import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareRegistry } from '../../src/core/index';
import { createStateKey, InvokeModelStage, type StateKey } from '../../src/agent/index';

describe('createStateKey', () => {
  it('types a key by its schema, or by its type argument', () => {
    expectTypeOf(createStateKey('count', z.number())).toEqualTypeOf<StateKey<number>>();
    expectTypeOf(createStateKey<{ readonly user: string }>('session')).toEqualTypeOf<StateKey<{ readonly user: string }>>();
  });

  it('reads and writes its type through any stage context, and nothing else', () => {
    const Count = createStateKey('count', z.number());
    new MiddlewareRegistry().add(InvokeModelStage.Input, (context) => {
      expectTypeOf(Count.get(context)).toEqualTypeOf<number | undefined>();
      expectTypeOf(Count.set(context, 1)).toEqualTypeOf<number>();
      // @ts-expect-error: a string is not the key's number
      Count.set(context, 'one');
      // @ts-expect-error: the key reads through a context, not the invocation state itself
      Count.get(context.invocationState);
      return context;
    });
  });
});
