import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareRegistry, type Middleware, type WrapHandler } from '../../src/core/index';
import * as middleware from '../../src/middleware/index';
import * as testing from '../../src/testing/index';
import { ModelStage } from './fixtures';

const { cache, fallback, rateLimit, regenerate, retry, timeout, validate } = middleware;

/** What the two entry points export that makes a named handler. */
interface Entries {
  readonly middleware: typeof middleware;
  readonly testing: typeof testing;
}

/** Every built-in handler and the name SPEC section 4 gives it, made from the given entry points. */
function handlerNames({ middleware: built, testing: kit }: Entries): [string, string][] {
  const validating: string[] = [];
  built
    .validate(ModelStage, { context: z.object({ prompt: z.string() }), result: z.object({ type: z.literal('result'), text: z.string() }) })
    .setup({
      add: (_target, handler) => (validating.push(handler.name), () => undefined),
      instrument: () => () => undefined,
      provide: () => () => undefined,
    });
  return [
    ['retry', built.retry().name],
    ['fallback', built.fallback([]).name],
    ['regenerate', built.regenerate({ check: () => undefined, feedback: (context) => context }).name],
    ['timeout', built.timeout(1).name],
    ['rateLimit', built.rateLimit({ minIntervalMs: 1 }).name],
    ['cache', built.cache({ key: () => undefined }).name],
    ['validateContext', validating[0] as string],
    ['validateResult', validating[1] as string],
    ['scriptedTerminal', kit.scriptedTerminal([['event']]).name],
  ];
}

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
      const bundle: Middleware = validate(ModelStage, {
        context: z.object({ prompt: z.string() }),
        result: z.object({ type: z.literal('result'), text: z.string() }),
      });
      registry.use(bundle);
      expect(registry.describe(ModelStage).map((entry) => [entry.phase, entry.name, entry.bundle])).toEqual([
        ['input', 'validateContext', 'validate'],
        ['output', 'validateResult', 'validate'],
      ]);
    });
  });

  describe('name', () => {
    it('is the name SPEC section 4 gives each handler', () => {
      const names = handlerNames({ middleware, testing });
      expect(names.map(([, name]) => name)).toEqual(names.map(([expected]) => expected));
    });

    // esbuild renames a function expression whose name collides with another binding of the bundle
    // (the handler `retry` inside the factory `retry`), so a name taken from the source would read `retry2`.
    it.each(['esm', 'cjs'] as const)('survives bundling the entry points with esbuild as %s', async (format) => {
      const directory = await mkdtemp(join(tmpdir(), 'staged-middleware-names-'));
      try {
        const load = async (entry: string): Promise<unknown> => {
          const bundled = await build({
            entryPoints: [entry],
            bundle: true,
            write: false,
            format,
            platform: 'node',
            target: 'es2022',
            logLevel: 'silent',
          });
          const file = join(directory, `${entry.replaceAll('/', '-')}.${format === 'esm' ? 'mjs' : 'cjs'}`);
          await writeFile(file, bundled.outputFiles[0]?.text ?? '');
          return format === 'esm' ? import(/* @vite-ignore */ pathToFileURL(file).href) : createRequire(import.meta.url)(file);
        };
        const entries = {
          middleware: (await load('src/middleware/index.ts')) as typeof middleware,
          testing: (await load('src/testing/index.ts')) as typeof testing,
        };
        const names = handlerNames(entries);
        expect(names.map(([, name]) => name)).toEqual(names.map(([expected]) => expected));
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    });
  });
});
