import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { failure } from '../assertions';
import { ModelStage as Stage, echo } from '../fixtures';
import { expectAborted } from './abort-fixtures';

describe('MiddlewareRegistry.invoke', () => {
  describe('signal aborted with a reason that is hard to describe', () => {
    function throwingMessage(): Error {
      const reason = new Error('hidden');
      Object.defineProperty(reason, 'message', {
        get() {
          throw new Error('the message getter throws');
        },
      });
      return reason;
    }
    function revokedProxy(): object {
      const { proxy, revoke } = Proxy.revocable(new Error('gone'), {});
      revoke();
      return proxy;
    }

    it.each([
      ['an Error whose message getter throws', throwingMessage],
      ['a revoked proxy', revokedProxy],
      ['an object without a prototype', () => Object.create(null) as object],
      ['an Error whose message is not a string', () => Object.assign(new Error(), { message: 42 })],
    ])('still fails with ERR_ABORTED carrying %s as the cause', async (_label, make) => {
      const reason = make();
      const error = await failure(new MiddlewareRegistry().run(Stage, { prompt: 'x' }, echo, { signal: AbortSignal.abort(reason) }));
      expectAborted(error, reason);
      expect((error as Error).message).toBe('[ERR_ABORTED] The invoke of stage "model" was aborted. The abort reason is the cause.');
    });
  });

  describe('signal aborted and the abort rethrown as another error', () => {
    it('still gives the consumer ERR_ABORTED when a handler wraps the abort in an error whose cause is the reason', async () => {
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      let wrapped: unknown;
      registry.add(Stage.Wrap, async function* rewrapping(_context, next) {
        try {
          yield* next();
        } catch (error) {
          wrapped = new Error('request cancelled', { cause: error });
          throw wrapped;
        }
      });
      const error = await failure(
        registry.run(
          Stage,
          { prompt: 'x' },
          async function* terminal(_context, run) {
            controller.abort('user left');
            throw run.signal.reason;
          },
          { signal: controller.signal },
        ),
      );
      expect((wrapped as Error).cause).toBe('user left');
      expectAborted(error, 'user left');
    });

    it.each([
      [
        'a plain error carrying the code ERR_ABORTED and the reason as cause',
        (reason: unknown) => Object.assign(new Error('aborted'), { code: 'ERR_ABORTED', cause: reason }),
      ],
      [
        'a MiddlewareError of another code with the reason as cause',
        (reason: unknown) => new MiddlewareError({ code: 'ERR_INVALID_EVENT', message: 'rewrapped', cause: reason }),
      ],
    ])('gives the consumer a genuine ERR_ABORTED when a handler rethrows the abort as %s', async (_label, rewrap) => {
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      let rethrown: unknown;
      registry.add(Stage.Wrap, async function* rewrapping(_context, next, run) {
        try {
          yield* next();
        } catch {
          rethrown = rewrap(run.signal.reason);
          throw rethrown;
        }
      });
      const error = await failure(
        registry.run(
          Stage,
          { prompt: 'x' },
          async function* terminal(_context, run) {
            controller.abort('user left');
            throw run.signal.reason;
          },
          { signal: controller.signal },
        ),
      );
      expect(error === rethrown).toBe(false);
      expectAborted(error, 'user left');
    });
  });
});
