import { describe, expectTypeOf, it } from 'vitest';
import type {
  HandlerInfo,
  InvokeOutcome,
  LayerInfo,
  MiddlewareErrorCode,
  MiddlewareWarning,
  Phase,
  RegistryOptions,
  StateBinding,
  SystemPrompt,
} from '../src/core/index';
import { MiddlewareRegistry, splitSystemPrompt } from '../src/core/index';

describe('staged-middleware (main entry point)', () => {
  describe('type exports', () => {
    it('exports MiddlewareWarning as the shape onWarning receives', () => {
      expectTypeOf<Parameters<NonNullable<RegistryOptions['onWarning']>>[0]>().toEqualTypeOf<MiddlewareWarning>();
      expectTypeOf<MiddlewareWarning['code']>().toEqualTypeOf<'WARN_UNKNOWN_ID' | 'WARN_DUPLICATE_HANDLER'>();
    });

    it('exports StateBinding as the type of InvokeOptions.state', () => {
      type StateOption = NonNullable<NonNullable<Parameters<MiddlewareRegistry['invoke']>[3]>['state']>;
      expectTypeOf<StateOption>().toEqualTypeOf<StateBinding<unknown>>();
      expectTypeOf<StateBinding<number>['set']>().toEqualTypeOf<(next: number) => void>();
    });

    it('exports the instrumentation types with their discriminants', () => {
      expectTypeOf<LayerInfo['kind']>().toEqualTypeOf<'wrap' | 'terminal'>();
      expectTypeOf<HandlerInfo['phase']>().toEqualTypeOf<Exclude<Phase, 'wrap'>>();
      expectTypeOf<InvokeOutcome['status']>().toEqualTypeOf<'success' | 'error' | 'closed'>();
    });

    it('exports the error codes and system prompt types', () => {
      expectTypeOf<'ERR_NO_RESULT'>().toExtend<MiddlewareErrorCode>();
      // @ts-expect-error: an unknown code is not a MiddlewareErrorCode
      expectTypeOf<'ERR_MADE_UP'>().toExtend<MiddlewareErrorCode>();
      expectTypeOf<ReturnType<typeof splitSystemPrompt>['blocks']>().toExtend<SystemPrompt>();
    });
  });
});
