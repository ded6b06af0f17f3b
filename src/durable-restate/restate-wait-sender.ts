/**
 * Answers the durable waits of agent workflows from outside, over Restate's
 * HTTP ingress: the `answer` handler of {@link agentWorkflowHandlers}.
 *
 * @packageDocumentation
 */
import type { JsonValue, WaitSender } from '../durable/index';
import { isObject } from '../util/is-object';
import { invalidRestateOption } from './errors';

/** Options of {@link restateWaitSender}. */
export interface RestateWaitSenderOptions {
  /** The ingress's base URL (`http://127.0.0.1:8080`). */
  readonly ingress: string;
  /** The workflow's name, as given to `restate.workflow({ name })`. */
  readonly workflow: string;
  /** Headers of every request (an API key, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The `fetch` to use (the global one by default). */
  readonly fetch?: typeof fetch;
}

/**
 * A {@link WaitSender} over Restate's ingress for the agent workflow
 * `workflow`: `send(key, name, value)` calls the `answer` handler of the
 * workflow run keyed `key` (a Restate workflow is addressed by its key; the
 * run id its steps see is the invocation id), which resolves its durable
 * promise `name`, whether the run waits already or reaches the wait later.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `ingress` or `workflow` is not a non-empty string.
 * @example
 * ```ts
 * await restateWaitSender({ ingress: 'http://127.0.0.1:8080', workflow: 'support' }).send('ticket-7', 'executeTool:t1:approve', 'yes');
 * ```
 */
export function restateWaitSender(options: RestateWaitSenderOptions): WaitSender {
  const parts = (isObject(options) ? options : {}) as Partial<Record<keyof RestateWaitSenderOptions, unknown>>;
  for (const key of ['ingress', 'workflow'] as const) {
    const value = parts[key];
    if (typeof value !== 'string' || value.length === 0)
      throw invalidRestateOption('restateWaitSender', `options.${key} must be a non-empty string`, value);
  }
  const base = (parts.ingress as string).replace(/\/+$/, '');
  const workflow = encodeURIComponent(parts.workflow as string);
  const headers = { ...(parts.headers as Record<string, string> | undefined), 'content-type': 'application/json' };
  const send = (parts.fetch as typeof fetch | undefined) ?? fetch;
  return Object.freeze({
    async send(key: string, name: string, value: JsonValue): Promise<void> {
      const response = await send(`${base}/${workflow}/${encodeURIComponent(key)}/answer`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name, value }),
      });
      if (!response.ok)
        throw new Error(
          `Restate ingress answered ${String(response.status)} to the answer of wait "${name}" of run "${key}": ${await response.text()}`,
        );
    },
  });
}
