import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareRegistry, type Middleware, type WrapHandler } from '../../src/index';
import { cache, fallback, rateLimit, regenerate, retry, timeout, validate } from '../../src/middleware/index';
import { ModelStage } from './fixtures';

describe('built-in handlers', () => {
  describe('registered without a name', () => {
    it.each<[string, WrapHandler<never, never>]>([
      ['retry', retry() as never],
      ['fallback', fallback([]) as never],
      ['regenerate', regenerate({ check: () => undefined, feedback: (context) => context }) as never],
      ['timeout', timeout(1) as never],
      ['rateLimit', rateLimit({ minIntervalMs: 1 }) as never],
      ['cache', cache({ key: () => undefined }) as never],
    ])('are named %s in describe()', (name, handler) => {
      const registry = new MiddlewareRegistry();
      registry.add(ModelStage.Wrap, handler as never);
      expect(registry.describe(ModelStage).map((entry) => [entry.phase, entry.name])).toEqual([['wrap', name]]);
    });

    it('are named validateContext and validateResult in a bundle named validate', () => {
      const registry = new MiddlewareRegistry();
      const bundle: Middleware = validate({ context: z.object({ prompt: z.string() }), result: z.object({ type: z.literal('result'), text: z.string() }) }).on(ModelStage);
      registry.use(bundle);
      expect(registry.describe(ModelStage).map((entry) => [entry.phase, entry.name, entry.bundle])).toEqual([
        ['input', 'validateContext', 'validate'],
        ['output', 'validateResult', 'validate'],
      ]);
    });
  });
});
