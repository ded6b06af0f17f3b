/**
 * The parts of a Restate handler's context the adapter uses, written out so
 * that this entry point's declarations compile without
 * `@restatedev/restate-sdk` installed: the SDK's `Context`, `ObjectContext`,
 * `WorkflowContext` and `WorkflowSharedContext` (1.17) fit them as they are.
 * Pure types.
 *
 * @packageDocumentation
 */

/** A promise of the Restate SDK (`RestatePromise`), as far as the adapter awaits it. */
export type RestateThenable<T> = PromiseLike<T>;

/** What a Restate context tells of the invocation it runs. */
export interface RestateRequest {
  /** The invocation id: the same in every attempt and after every suspension of the invocation. */
  readonly id: string;
}

/** A Restate handler's context (`Context` of a service, an object or a workflow): journaled steps and awakeables. */
export interface RestateContext {
  /** The invocation this handler runs. */
  request(): RestateRequest;
  /** Runs `action` as the journaled side effect `name` (`ctx.run`). */
  run<T>(name: string, action: () => Promise<T>): RestateThenable<T>;
  /** Creates an awakeable: an id the outside world completes, and the promise it completes. */
  awakeable<T>(): { id: string; promise: RestateThenable<T> };
}

/** A workflow's durable promise (`ctx.promise(name)`), as far as the adapter uses it. */
export interface RestateDurablePromise<T> {
  /** Waits for the value (suspending the invocation meanwhile). */
  get(): RestateThenable<T>;
  /** Resolves it; a second resolution is ignored by Restate. */
  resolve(value?: T): RestateThenable<void>;
}

/** A workflow's shared context (`WorkflowSharedContext`): its durable promises and its state, read-only. */
export interface RestateWorkflowSharedContext {
  /** The workflow's durable promise `name`. */
  promise<T>(name: string): RestateDurablePromise<T>;
  /** Reads the state key `name` (null when unset). */
  get<T>(name: string): RestateThenable<T | null>;
}

/** A workflow's `run` context (`WorkflowContext`): a Restate context with durable promises and writable state. */
export interface RestateWorkflowContext extends RestateContext, RestateWorkflowSharedContext {
  /** Writes the state key `name`. */
  set(name: string, value: unknown): void;
}
