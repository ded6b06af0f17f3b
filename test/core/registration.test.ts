import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareRegistry, registration } from '../../src/core/index';

const Stage = createStage<{ prompt: string }, string>('reply');

async function* echo(context: { prompt: string }): AsyncGenerator<string> {
  yield `echo ${context.prompt}`;
}

describe('registration', () => {
  describe('building a per-invoke registration', () => {
    it('returns the target, the handler and the options as a tuple', () => {
      const handler = (context: { prompt: string }) => context;
      expect(registration(Stage.Input, handler, { name: 'same', order: 1 })).toEqual([Stage.Input, handler, { name: 'same', order: 1 }]);
      expect(registration(Stage.Input, handler)).toEqual([Stage.Input, handler]);
    });

    it('runs its handler for that invoke only', async () => {
      const registry = new MiddlewareRegistry();
      const use = [registration(Stage.Input, (context) => ({ prompt: `${context.prompt}!` }))];
      expect(await registry.run(Stage, { prompt: 'hi' }, echo, { use })).toBe('echo hi!');
      expect(await registry.run(Stage, { prompt: 'hi' }, echo)).toBe('echo hi');
    });
  });
});
