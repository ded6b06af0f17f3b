import { describe, expect, it } from 'vitest';
import { aiSdkLoopUser } from './ai-sdk-loop-user';
import { expectedAiSdkLoopUser } from './ai-sdk-loop-user-expected';

describe("the registry inside the AI SDK's own loop", () => {
  describe('the task of ai-sdk-loop-user.ts, on src/', () => {
    it('runs streamText with the model handlers around every model call and the tool handlers around every tool call', async () => {
      expect(await aiSdkLoopUser()).toEqual(expectedAiSdkLoopUser);
    });
  });
});
