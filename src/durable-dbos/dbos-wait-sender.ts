/**
 * Answering the waits of durable runs on DBOS from outside them: an approval
 * UI or an API handler reads the wait a run is blocked on and sends the
 * answer as a DBOS message, from a process that runs DBOS or from any
 * process through a `DBOSClient`.
 *
 * @packageDocumentation
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { JsonValue, WaitRequest, WaitSender } from '../durable/index';
import { invalidDurableOption } from '../durable/errors';
import { toJsonValue } from '../agent/values/json-value';
import { deepFreeze } from '../util/deep-freeze';
import { isObject } from '../util/is-object';
import { ownEntry } from '../util/own-entry';
import { WAIT_EVENT, type Received } from './dbos-step-runner';

/** What {@link dbosWaitSender} sends and reads through: `DBOS` itself (the default) or a `DBOSClient` of the same system database. */
export interface DbosMessaging {
  /** `DBOS.send` / `DBOSClient.send`. */
  send(destinationId: string, message: Received, topic: string, idempotencyKey: string): Promise<void>;
  /** `DBOS.getEvent` / `DBOSClient.getEvent`. */
  getEvent(workflowId: string, key: string, timeoutSeconds: number): Promise<unknown>;
}

/** A {@link WaitSender} over DBOS that also tells which wait a run is blocked on. */
export interface DbosWaitSender extends WaitSender {
  /** The wait run `runId` is blocked on now (its name and request, as the run recorded them), or undefined when it waits for nothing. */
  pending(runId: string): Promise<WaitRequest | undefined>;
}

/** DBOS itself, for a process that has launched it. */
const dbosItself: DbosMessaging = {
  send: (destinationId, message, topic, idempotencyKey) => DBOS.send(destinationId, message, topic, idempotencyKey),
  getEvent: (workflowId, key, timeoutSeconds) => DBOS.getEvent(workflowId, key, { timeoutSeconds }),
};

/**
 * Answers the waits of durable runs on DBOS (see `dbosStepRunner`): `send`
 * sends `{ value }` to workflow `runId` on the topic `name`, with the
 * idempotency key `staged-middleware.wait:<runId>:<name>`, so a second
 * answer to the same wait is dropped; `pending` reads the run's wait event.
 * Pass a `DBOSClient` to answer from a process that does not launch DBOS.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `messaging` has no `send` and `getEvent`.
 * @example
 * ```ts
 * const approvals = dbosWaitSender();
 * const wait = await approvals.pending('order-42');
 * if (wait !== undefined) await approvals.send('order-42', wait.name, { approved: true });
 * ```
 */
export function dbosWaitSender(messaging: DbosMessaging = dbosItself): DbosWaitSender {
  const parts = (isObject(messaging) ? messaging : {}) as Partial<Record<keyof DbosMessaging, unknown>>;
  if (typeof parts.send !== 'function' || typeof parts.getEvent !== 'function')
    throw invalidDurableOption(
      'dbosWaitSender',
      'messaging must be DBOS-like: { send(id, message, topic, key), getEvent(id, key, timeout) }, such as a DBOSClient',
      messaging,
    );
  return Object.freeze({
    async send(runId: string, name: string, value: JsonValue): Promise<void> {
      await messaging.send(runId, { value }, name, `staged-middleware.wait:${runId}:${name}`);
    },
    async pending(runId: string): Promise<WaitRequest | undefined> {
      // A row of the database: copied as plain data (`__proto__` an ordinary key) before anything of it is read.
      const event = toJsonValue(await messaging.getEvent(runId, WAIT_EVENT, 0), 'the wait event');
      if (!event.ok || !isObject(event.json)) return undefined;
      const name = ownEntry(event.json, 'name');
      if (typeof name !== 'string') return undefined;
      const wait: WaitRequest = { name, request: (ownEntry(event.json, 'request') ?? null) as JsonValue };
      deepFreeze(wait);
      return wait;
    },
  } satisfies DbosWaitSender);
}
