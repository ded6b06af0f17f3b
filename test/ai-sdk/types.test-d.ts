import type { LanguageModelV2 } from '@ai-sdk/provider';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expectTypeOf, it } from 'vitest';
import { Agent, type Model } from '../../src/agent/index';
import { fromAiSdk, type AiSdkLanguageModel, type AiSdkModel } from '../../src/ai-sdk/index';

describe('fromAiSdk', () => {
  describe('the models it takes', () => {
    it('takes every LanguageModelV3 of @ai-sdk/provider, the mock of ai/test included, without a cast', () => {
      expectTypeOf<LanguageModelV3>().toExtend<AiSdkLanguageModel>();
      expectTypeOf(fromAiSdk(new MockLanguageModelV3())).toEqualTypeOf<AiSdkModel>();
    });

    it('refuses a model of an older specification', () => {
      const older = {} as LanguageModelV2;
      // @ts-expect-error: the adapter takes LanguageModelV3 (the providers of ai 6).
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
