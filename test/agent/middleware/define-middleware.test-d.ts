import { describe, expectTypeOf, it } from 'vitest';
import type { Middleware } from '../../../src/core/index';
import {
  defineMiddleware,
  errorsAsAnswers,
  toolErrorAnswer,
  type ExecuteToolContext,
  type InvokeModelContext,
  type ModelResultEvent,
  type TurnContext,
} from '../../../src/agent/index';

describe('defineMiddleware', () => {
  it('types each hook by its stage and phase', () => {
    const bundle = defineMiddleware({
      name: 'typed',
      model: {
        input: (context) => {
          expectTypeOf(context).toEqualTypeOf<InvokeModelContext>();
          return context;
        },
        output: (result) => {
          expectTypeOf(result.value).toEqualTypeOf<ModelResultEvent>();
          return result;
        },
      },
      tool: {
        wrap: {
          order: -1,
          handler: async function* (context, next) {
            expectTypeOf(context).toEqualTypeOf<ExecuteToolContext>();
            yield* next();
          },
        },
      },
      turn: { input: (context) => (expectTypeOf(context).toEqualTypeOf<TurnContext>(), context) },
    });
    expectTypeOf(bundle).toEqualTypeOf<Middleware>();
  });

  it('takes a built-in handler of the right stage, and refuses one of another', () => {
    defineMiddleware({ name: 'answers', tool: { wrap: errorsAsAnswers({ toResult: toolErrorAnswer }) } });
    // @ts-expect-error: a tool's answer is no result of the model stage
    defineMiddleware({ name: 'answers', model: { wrap: errorsAsAnswers({ toResult: toolErrorAnswer }) } });
  });

  it('refuses keys it does not know, at the type level too', () => {
    // @ts-expect-error: LangChain's wrapModelCall is model.wrap here
    defineMiddleware({ name: 'ported', wrapModelCall: () => undefined });
    // @ts-expect-error: a hook object takes the options of add, and priority is none of them
    defineMiddleware({ name: 'ported', model: { wrap: { handler: async function* () {}, priority: 1 } } });
    // @ts-expect-error: an Input handler returns a context, not a string
    defineMiddleware({ name: 'ported', model: { input: () => 'context' } });
  });
});
