import type { LanguageModelV3Middleware } from '@ai-sdk/provider';
import type { LanguageModelMiddleware as LanguageModelMiddlewareOfAi7 } from 'ai-v7';
import { describe, expectTypeOf, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { languageModelMiddleware } from '../../src/ai-sdk/index';

describe('languageModelMiddleware', () => {
  it('is a LanguageModelV3Middleware of ai 6', () => {
    expectTypeOf(languageModelMiddleware(new MiddlewareRegistry())).toExtend<LanguageModelV3Middleware>();
  });

  it("is a LanguageModelV4Middleware of ai 7 with specificationVersion 'v4'", () => {
    expectTypeOf(
      languageModelMiddleware(new MiddlewareRegistry(), { specificationVersion: 'v4' }),
    ).toExtend<LanguageModelMiddlewareOfAi7>();
  });
});
