/**
 * The DBOS adapter's checks and its reading of database rows, without a
 * database: `dbosWaitSender` over a recording double of DBOS's messaging
 * (the real one runs in test/integration/durable-dbos.test.ts), and the
 * arguments `registerDurableWorkflow`, `registerDurableAgent` and
 * `dbosStepRunner` refuse before they reach DBOS.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import {
  dbosStepRunner,
  dbosWaitSender,
  registerDurableAgent,
  registerDurableWorkflow,
  WAIT_EVENT,
  type DbosMessaging,
} from '../../src/durable-dbos/index';

/** A messaging double: records what is sent, answers `getEvent` with `event`. */
function messaging(event: unknown): DbosMessaging & { readonly sent: unknown[][]; readonly read: unknown[][] } {
  const sent: unknown[][] = [];
  const read: unknown[][] = [];
  return {
    sent,
    read,
    send: (...args) => {
      sent.push(args);
      return Promise.resolve();
    },
    getEvent: (...args) => {
      read.push(args);
      return Promise.resolve(event);
    },
  };
}

function refusal(run: () => unknown): { code: unknown; message: unknown } {
  try {
    run();
  } catch (error) {
    if (MiddlewareError.isInstance(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('no refusal');
}

describe('dbosWaitSender', () => {
  describe('send', () => {
    it('sends the value wrapped as { value } on the topic of the wait, with a key of the run and the wait', async () => {
      const transport = messaging(null);
      await dbosWaitSender(transport).send('run-1', 'executeTool:call-2:approve', null);
      expect(transport.sent).toEqual([
        ['run-1', { value: null }, 'executeTool:call-2:approve', 'staged-middleware.wait:run-1:executeTool:call-2:approve'],
      ]);
    });
  });

  describe('pending', () => {
    it("reads the run's wait event without waiting, and gives a frozen copy", async () => {
      const transport = messaging({
        name: 'executeTool:call-2:approve',
        request: { id: 'executeTool:call-2:approve', reason: ['refund'] },
      });
      const wait = await dbosWaitSender(transport).pending('run-1');
      expect(transport.read).toEqual([['run-1', WAIT_EVENT, 0]]);
      expect(wait).toEqual({ name: 'executeTool:call-2:approve', request: { id: 'executeTool:call-2:approve', reason: ['refund'] } });
      expect(Object.isFrozen(wait) && Object.isFrozen((wait?.request as { reason: unknown }).reason)).toBe(true);
    });

    it('keeps a __proto__ key of the row as an ordinary own key', async () => {
      const row = JSON.parse('{"name":"w","request":{"__proto__":{"polluted":true}}}') as unknown;
      const wait = await dbosWaitSender(messaging(row)).pending('run-1');
      expect(Object.getOwnPropertyNames(wait?.request)).toEqual(['__proto__']);
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    });

    it.each([null, undefined, 'waiting', 7, [], { request: 1 }, { name: 3 }])(
      'gives undefined for an event %j that names no wait',
      async (event) => {
        expect(await dbosWaitSender(messaging(event)).pending('run-1')).toBeUndefined();
      },
    );

    it('never throws on any JSON row, and names a wait exactly when the row has a string name', async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), fc.option(fc.string(), { nil: undefined }), async (request, name) => {
          const row = name === undefined ? request : { name, request };
          const wait = await dbosWaitSender(messaging(row)).pending('run-1');
          expect(wait === undefined).toBe(name === undefined && !(typeof (request as { name?: unknown } | null)?.name === 'string'));
        }),
      );
    });
  });

  it('refuses messaging that is not DBOS-like with ERR_INVALID_OPTIONS', () => {
    expect(refusal(() => dbosWaitSender({ send: () => Promise.resolve() } as unknown as DbosMessaging))).toEqual({
      code: 'ERR_INVALID_OPTIONS',
      message:
        '[ERR_INVALID_OPTIONS] dbosWaitSender(): messaging must be DBOS-like: { send(id, message, topic, key), getEvent(id, key, timeout) }, such as a DBOSClient, got a plain object.',
    });
  });
});

describe('registerDurableWorkflow', () => {
  it.each([
    ['', async () => null, 'name must be a non-empty string, got the string ""'],
    ['loop', 'not a function', 'body must be a function (runner, input) => Promise<output>, got the string "not a function"'],
  ])('refuses name %j with ERR_INVALID_OPTIONS before it reaches DBOS', (name, body, problem) => {
    expect(refusal(() => registerDurableWorkflow(name, body as () => Promise<null>))).toEqual({
      code: 'ERR_INVALID_OPTIONS',
      message: `[ERR_INVALID_OPTIONS] registerDurableWorkflow(): ${problem}.`,
    });
  });
});

describe('registerDurableAgent', () => {
  it('refuses options without an agent function with ERR_INVALID_OPTIONS', () => {
    expect(refusal(() => registerDurableAgent({ name: 'support' } as unknown as Parameters<typeof registerDurableAgent>[0]))).toEqual({
      code: 'ERR_INVALID_OPTIONS',
      message: '[ERR_INVALID_OPTIONS] registerDurableAgent(): agent must be a function that makes the Agent of a run, got undefined.',
    });
  });
});

describe('dbosStepRunner', () => {
  it.each([0, -1, Number.NaN, '60'])('refuses receiveSeconds %j with ERR_INVALID_OPTIONS', (receiveSeconds) => {
    expect(refusal(() => dbosStepRunner({ receiveSeconds: receiveSeconds as number })).code).toBe('ERR_INVALID_OPTIONS');
  });
});
