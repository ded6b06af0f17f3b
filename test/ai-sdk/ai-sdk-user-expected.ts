/**
 * What the tasks of `ai-sdk-user.ts` must show: checked on `src/` by
 * `ai-sdk-user.test.ts` and on the installed package by the packed-package tier.
 */
/** The value `aiSdkUser()` resolves to. */
export const expectedAiSdkUser = {
  stopReason: 'endTurn',
  // The first call failed with a 503 before streaming: the live retry marks it, then the next attempt streams.
  firstEvents: ['attempt-boundary', 'messageStart', 'toolUseStart'],
  answer: [{ type: 'text', text: 'Sunny in Paris. Write to [redacted] for more.' }],
  toolResults: [
    { toolUseId: 'call-1', name: 'weather', status: 'success' },
    { toolUseId: 'call-2', name: 'delete_files', status: 'error' },
  ],
  // The 503, the tool calls, the answer, and the own loop's call.
  modelCalls: 4,
  secondCallToolMessage: {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'call-1', toolName: 'weather', output: { type: 'text', value: 'Sunny in Paris' } },
      {
        type: 'tool-result',
        toolCallId: 'call-2',
        toolName: 'delete_files',
        output: { type: 'error-text', value: 'Blocked: deleting files needs a human.' },
      },
    ],
  },
  ownLoop: {
    answer: [{ type: 'text', text: 'Sunny in Paris. Write to [redacted] for more.' }],
    tool: {
      type: 'toolResult',
      toolUseId: 'own-1',
      name: 'weather',
      status: 'success',
      content: [{ type: 'text', text: 'Sunny in Oslo' }],
    },
  },
  traced: true,
};
