import { describe, expect, it } from 'vitest';
import { aiSdkUser } from './ai-sdk-user';
import { expectedAiSdkUser } from './ai-sdk-user-expected';

describe('an agent framework on the Vercel AI SDK', () => {
  describe('the tasks of ai-sdk-user.ts, on src/', () => {
    it('run with the adapter alone: retry, tracing, a guardrail and a redaction around an AI SDK model, and an own loop', async () => {
      expect(await aiSdkUser()).toEqual(expectedAiSdkUser);
    });
  });
});
