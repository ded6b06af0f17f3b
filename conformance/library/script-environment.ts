/**
 * What the scripts of one chain case share, and the helpers every script
 * step uses: recording into the trace, throwing user errors, aborting the
 * invoke, naming a function, returning events in the shape a case asks for.
 */
import { MiddlewareError, type HandlerCall } from '../../src/core/index';
import type { OpaqueKind, Returns } from '../cases/chain-steps';

/** An async generator of events. */
export type Generator = AsyncGenerator<unknown, void, undefined>;
/** The `next` a Wrap handler receives. */
export type NextFunction = (context?: unknown, options?: { signal?: AbortSignal }) => Generator;

/** What every script shares during one case. */
export interface Environment {
  /** The trace of recorded labels, in order. */
  readonly trace: string[];
  /** Every error a script threw, to check that errors arrive unchanged. */
  readonly userErrors: Set<unknown>;
  /** The invoke's controller, when the case gives the invoke a signal. */
  controller: AbortController | undefined;
  /** Local controllers for narrowed signals, by name. */
  readonly locals: Map<string, AbortController>;
  /** `next` functions kept for calling after the invoke settled. */
  readonly keptNexts: NextFunction[];
  /** The state binding's set(), for scripts that call it directly. */
  bindingSet: ((value: unknown) => void) | undefined;
  /** The opaque values the terminal yielded, by identity, with their kind. */
  readonly opaque: Map<unknown, OpaqueKind>;
}

/** A new opaque value of `kind` (spec/README.md, "Handler scripts"), remembered so that it can be recognised when it arrives. */
export function opaqueValue(environment: Environment, kind: OpaqueKind): unknown {
  const value = makeOpaque(kind);
  environment.opaque.set(value, kind);
  return value;
}

function makeOpaque(kind: OpaqueKind): unknown {
  switch (kind) {
    case 'promise':
      return Promise.resolve('replaced');
    case 'thenable':
      return {
        then(resolve: (value: unknown) => void): void {
          resolve('replaced');
        },
      };
    case 'throwing':
      // Every operation on it throws: reading, freezing, asking for its prototype.
      return new Proxy(
        {},
        new Proxy(
          {},
          {
            get: (_handler, trap) => () => {
              throw new Error(`the library used the opaque value (${String(trap)})`);
            },
          },
        ),
      );
    default:
      // A function for every property, a `then` among them, which never calls back.
      return new Proxy({}, { get: () => () => undefined });
  }
}

/** Placeholders a recorded text may use. */
export interface Values {
  /** `{context}`: the context, as JSON. */
  readonly context?: unknown;
  /** `{result}`: the result's value, as JSON. */
  readonly result?: unknown;
  /** `{state}`: the terminal call's state draft, as JSON. */
  readonly state?: unknown;
  /** `{error}`: the caught error, by code or message. */
  readonly error?: unknown;
  /** `{aborted}`: whether this signal is aborted. */
  readonly signal?: AbortSignal;
  /** `{handler}` and `{stage}`: the running handler's name and its stage's name. */
  readonly run?: HandlerCall;
  /** `{call}`: the terminal call number, from 1. */
  readonly call?: number;
}

/** True for a result event of a guarded case stage: an object with `"result": true`. */
export function isResultEvent(event: unknown): boolean {
  return typeof event === 'object' && event !== null && (event as { result?: unknown }).result === true;
}

/** How an error is written into the trace: its code, or its message. */
export function errorText(error: unknown): string {
  if (MiddlewareError.isInstance(error)) return error.code;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A text with its placeholders filled in (spec/README.md, "Handler scripts"). */
export function fill(text: string, values: Values): string {
  return text
    .replaceAll('{context}', () => JSON.stringify(values.context))
    .replaceAll('{result}', () => JSON.stringify(values.result))
    .replaceAll('{state}', () => JSON.stringify(values.state))
    .replaceAll('{error}', () => errorText(values.error))
    .replaceAll('{aborted}', () => String(values.signal?.aborted))
    .replaceAll('{handler}', () => String(values.run?.handler))
    .replaceAll('{stage}', () => String(values.run?.stage.name))
    .replaceAll('{call}', () => String(values.call));
}

/** A new user error the case throws, with `properties` assigned to it, remembered so that it can be recognised when it arrives. */
export function userError(
  environment: Environment,
  message: string,
  properties?: Readonly<Record<string, unknown>>,
  interruptSignal?: boolean,
): Error {
  const error = Object.assign(new Error(message), properties);
  if (interruptSignal === true) markInterruptSignal(error);
  environment.userErrors.add(error);
  return error;
}

/** The realm-wide record every copy of the library recognises its objects by (MW-201), as the library publishes it. */
interface RealmBrands {
  /** The objects branded one by one, with their kind. */
  readonly objects: WeakMap<object, string>;
}

/**
 * Records `error` as an interrupt signal in the realm-wide record, as the
 * agent kit records its own `InterruptSignal`s, so every copy of the library
 * takes it for one (MW-083, MW-201). The record exists once any copy has loaded.
 */
function markInterruptSignal(error: Error): void {
  const record = (globalThis as unknown as Record<symbol, RealmBrands | undefined>)[Symbol.for('staged-middleware.brands.v1')];
  if (!(record?.objects instanceof WeakMap))
    throw new Error('No copy of staged-middleware has published its realm-wide record; an interrupt signal cannot be made.');
  record.objects.set(error, 'interrupt-signal');
}

/** Aborts the invoke's signal with `reason`. */
export function abortInvoke(environment: Environment, reason: string): void {
  if (environment.controller === undefined) throw new Error('A case aborts the invoke but gives it no signal: add "signal": {}.');
  environment.controller.abort(reason);
}

/** Gives `fn` the name `name` (the empty string when undefined). */
export function named<T extends (...args: never[]) => unknown>(fn: T, name: string | undefined): T {
  Object.defineProperty(fn, 'name', { value: name ?? '' });
  return fn;
}

/** Returns the events of `make` in the shape `returns` names. */
export function deliver(make: () => Generator, returns: Returns): unknown {
  switch (returns) {
    case 'iterable':
      // An async iterable that is not a generator: the library must adapt it.
      return { [Symbol.asyncIterator]: () => make() };
    case 'no-return': {
      // An async iterator with next() only: the library adapts it and cannot close it.
      const generator = make();
      const iterator = { [Symbol.asyncIterator]: () => iterator, next: () => generator.next() };
      return iterator;
    }
    case 'promise':
      return Promise.resolve([]);
    case 'array':
      return [];
    case 'number':
      return 42;
    default:
      return make();
  }
}
