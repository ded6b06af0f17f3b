import { describe, expectTypeOf, it } from 'vitest';
import { createStage, type DeepReadonly } from '../../src/core/index';
import { runStage, scriptedTerminal } from '../../src/testing/index';

interface Reply {
  type: 'reply';
  text: string;
  tags: string[];
}
const ReplyStage = createStage<{ prompt: string }, Reply>('reply');
const reply: Reply = { type: 'reply', text: 'hi', tags: [] };

describe('runStage', () => {
  describe('result', () => {
    it('is typed read-only all the way down, as the deeply frozen last event it is', async () => {
      const run = await runStage(ReplyStage, { context: { prompt: 'p' }, terminal: scriptedTerminal([[reply]]) });
      expectTypeOf(run.result).toEqualTypeOf<DeepReadonly<Reply> | undefined>();
      // @ts-expect-error: the result is frozen, so an array in it has no push
      run.result?.tags.push('x');
    });
  });
});
