/**
 * What the task of `ai-sdk-loop-user.ts` must show: checked on `src/` by
 * `ai-sdk-loop-user.test.ts` and on the installed package by the packed-package tier.
 */
/** The value `aiSdkLoopUser()` resolves to. */
export const expectedAiSdkLoopUser = {
  // The retried model stream: the failed attempt's "Half an " never reaches the consumer.
  chunks: ['Sunny', ', nothing deleted.'],
  // The weather tool's own value after its retry; the guard's answer as the tool error the model reads.
  toolParts: {
    w1: ['tool-result', { city: 'Paris', sky: 'sunny' }],
    d1: ['tool-error', 'Deleting needs a human.'],
  },
  calls: ['Paris', 'Paris'],
  finishReason: 'stop',
};
