import type { LanguageModelV2 } from '@ai-sdk/provider';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModel as LanguageModelOfAi7 } from 'ai-v7';
import { MockLanguageModelV4 } from 'ai-v7/test';
import { describe, expectTypeOf, it } from 'vitest';
import { Agent, type Model } from '../../src/agent/index';
import { fromAiSdk, type AiSdkLanguageModel, type AiSdkModel } from '../../src/ai-sdk/index';

/** `LanguageModelV4` of `@ai-sdk/provider` 4, as ai 7 names it among the models it takes. */
type LanguageModelV4 = Extract<LanguageModelOfAi7, { readonly specificationVersion: 'v4' }>;

describe('fromAiSdk', () => {
  describe('the models it takes', () => {
    it('takes every LanguageModelV3 of @ai-sdk/provider 3, the mock of ai/test included, without a cast', () => {
      expectTypeOf<LanguageModelV3>().toExtend<AiSdkLanguageModel>();
      expectTypeOf(fromAiSdk(new MockLanguageModelV3())).toEqualTypeOf<AiSdkModel>();
    });

    it('takes every LanguageModelV4 of @ai-sdk/provider 4, the mock of ai 7 included, without a cast', () => {
      expectTypeOf<LanguageModelV4>().not.toBeNever();
      expectTypeOf<LanguageModelV4>().toExtend<AiSdkLanguageModel>();
      expectTypeOf(fromAiSdk(new MockLanguageModelV4())).toEqualTypeOf<AiSdkModel>();
    });

    it('refuses a model of an older specification', () => {
      const older = {} as LanguageModelV2;
      // @ts-expect-error: the adapter takes LanguageModelV3 and LanguageModelV4 (the providers of ai 6 and 7).
      fromAiSdk(older);
    });
  });

  describe('the model it makes', () => {
    it('is a model of the agent kit', () => {
      expectTypeOf<AiSdkModel>().toExtend<Model>();
      expectTypeOf(new Agent({ model: fromAiSdk(new MockLanguageModelV3()) })).toEqualTypeOf<Agent>();
    });
  });
});
