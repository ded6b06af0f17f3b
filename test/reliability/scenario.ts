/**
 * Generated scenarios for the model-based property test: a scenario is plain
 * data (so fast-check can print and shrink it), and the handlers are built
 * from it afresh for each engine run. Both engines (the library and the
 * reference interpreter) run the very same handler code; only the engine
 * differs, so any difference in the trace is a difference of the engines.
 */
import { MiddlewareResult } from '../../src/core/index';
import type { NextPolicy } from '../../src/core/types';
import { wrapHandler } from './scenario-wrap';

/** Which scope a registration belongs to. */
export type ScopeLevel = 'root' | 'child' | 'invoke';

/** What a Wrap handler does. */
export type WrapBehaviour =
  | { readonly kind: 'pass' }
  | { readonly kind: 'filter' }
  | { readonly kind: 'map' }
  | { readonly kind: 'inject-before'; readonly result: boolean; readonly bang: boolean }
  | { readonly kind: 'inject-after'; readonly result: boolean; readonly bang: boolean }
  | { readonly kind: 'short-circuit' }
  | { readonly kind: 'retry'; readonly attempts: number }
  | { readonly kind: 'throw-before' }
  | { readonly kind: 'throw-after' }
  | { readonly kind: 'catch-recover' }
  | { readonly kind: 'replace-context' }
  | { readonly kind: 'peek' }
  | { readonly kind: 'break-after'; readonly count: number }
  | { readonly kind: 'call-twice' }
  | { readonly kind: 'interleave' }
  | { readonly kind: 'throw-in-finally' }
  | { readonly kind: 'yield-undefined' };

/** What an Input handler does. */
export type InputBehaviour =
  | { readonly kind: 'append'; readonly async: boolean; readonly bang: boolean }
  | { readonly kind: 'throw' }
  | { readonly kind: 'undefined' };

/** What an Output handler does. */
export type OutputBehaviour =
  { readonly kind: 'append'; readonly async: boolean; readonly bang: boolean } | { readonly kind: 'throw' } | { readonly kind: 'raw' };

/** One generated registration. */
export type RegistrationSpec = {
  readonly level: ScopeLevel;
  readonly order: number | undefined;
  readonly id: string | undefined;
  readonly before: readonly string[];
  readonly after: readonly string[];
  readonly replace: boolean;
} & (
  | { readonly phase: 'input'; readonly behaviour: InputBehaviour }
  | { readonly phase: 'wrap'; readonly behaviour: WrapBehaviour; readonly next: NextPolicy }
  | { readonly phase: 'output'; readonly behaviour: OutputBehaviour }
);

/** What the terminal does on every call. */
export interface TerminalSpec {
  /** How many events each call yields (0..50). */
  readonly count: number;
  /** Throws before yielding the event with this index (no throw when >= count). */
  readonly throwAt: number;
  /** Whether the last event is a result (`r:`) rather than a delta (`d:`). */
  readonly endsWithResult: boolean;
  /** Awaits a resolved promise before each event, to shuffle microtasks. */
  readonly awaits: boolean;
}

/** How the consumer iterates. */
export type ConsumerSpec =
  { readonly kind: 'drain' } | { readonly kind: 'break'; readonly after: number } | { readonly kind: 'abort'; readonly after: number };

/** One generated scenario. */
export interface Scenario {
  readonly registrations: readonly RegistrationSpec[];
  /** `none`: no isResult; `prefix`: results start with `r:`; `throwing`: like prefix, throws on events containing `!`. */
  readonly guard: 'none' | 'prefix' | 'throwing';
  readonly contextSchema: 'none' | 'sync' | 'async';
  readonly resultSchema: 'none' | 'sync' | 'async';
  readonly state: boolean;
  readonly terminal: TerminalSpec;
  readonly consumer: ConsumerSpec;
  /** Library runs only: an instrumentation observing every layer, which must change nothing observable. */
  readonly instrumented: boolean;
}

/** An error thrown by generated user code; compared by identity and message. */
export class UserError extends Error {
  override readonly name = 'UserError';
}

/** What one engine run records. */
export interface RunEnvironment {
  /** Labels in the order things happened (handler entries, finallys, deliveries). */
  readonly trace: string[];
  /** Every user error thrown, to check identity of the one the consumer gets. */
  readonly thrown: UserError[];
}

/** Shape of a state value in generated scenarios. */
export interface GeneratedState {
  calls: number;
  log: string[];
  temporary?: number;
}

/** Builds the handler function of registration `index` for one run. */
export function buildHandler(spec: RegistrationSpec, index: number, environment: RunEnvironment): (...args: never[]) => unknown {
  const label = `h${index}`;
  const { trace, thrown } = environment;
  const fail = (what: string): UserError => {
    const error = new UserError(`${label} ${what}`);
    thrown.push(error);
    return error;
  };
  if (spec.phase === 'input') {
    const behaviour = spec.behaviour;
    return (context: string) => {
      trace.push(`${label}:input`);
      if (behaviour.kind === 'throw') throw fail('input');
      if (behaviour.kind === 'undefined') return undefined;
      const produced = `${context}>${index}${behaviour.bang ? '?' : ''}`;
      return behaviour.async ? Promise.resolve(produced) : produced;
    };
  }
  if (spec.phase === 'output') {
    const behaviour = spec.behaviour;
    return (result: MiddlewareResult<string>) => {
      trace.push(`${label}:output`);
      if (behaviour.kind === 'throw') throw fail('output');
      if (behaviour.kind === 'raw') return result.value;
      const produced = result.replace(`${result.value}<${index}${behaviour.bang ? '?' : ''}`);
      return behaviour.async ? Promise.resolve(produced) : produced;
    };
  }
  return wrapHandler(spec.behaviour, index, label, trace, fail);
}

/** Builds the terminal of a scenario for one run. */
export function buildTerminal(spec: TerminalSpec, environment: RunEnvironment) {
  const { trace, thrown } = environment;
  return async function* terminal(context: string, run: { readonly state: unknown }): AsyncGenerator<unknown, void, undefined> {
    trace.push(`t:enter ${context}`);
    const state = run.state as GeneratedState | undefined;
    if (state !== undefined) {
      state.calls += 1;
      state.log.push(context);
      delete state.temporary;
    }
    try {
      for (let position = 0; position < spec.count; position++) {
        if (position === spec.throwAt) {
          const error = new UserError(`terminal at ${position}`);
          thrown.push(error);
          throw error;
        }
        if (spec.awaits) await Promise.resolve();
        const last = position === spec.count - 1;
        yield last && spec.endsWithResult ? `r:${context}:${position}` : `d:${position}`;
      }
    } finally {
      trace.push('t:finally');
    }
  };
}

/** The stage options of a scenario (the same for both engines). */
export function stageOptionsOf(scenario: Scenario, environment: RunEnvironment) {
  const isResult =
    scenario.guard === 'none'
      ? undefined
      : (event: unknown): boolean => {
          if (scenario.guard === 'throwing' && String(event).includes('!')) {
            const error = new UserError(`isResult ${String(event)}`);
            environment.thrown.push(error);
            throw error;
          }
          return String(event).startsWith('r:');
        };
  const schema = (kind: 'none' | 'sync' | 'async', suffix: string) => {
    if (kind === 'none') return undefined;
    const check = (value: unknown) =>
      typeof value === 'string' && !value.includes('?')
        ? ({ success: true, data: `${value}${suffix}` } as const)
        : ({ success: false, error: { issues: [{ message: 'contains ?' }] } } as const);
    return kind === 'sync' ? { safeParse: check } : { safeParse: check, safeParseAsync: async (value: unknown) => check(value) };
  };
  return {
    ...(isResult === undefined ? {} : { isResult }),
    ...(scenario.contextSchema === 'none' ? {} : { context: schema(scenario.contextSchema, '#c') }),
    ...(scenario.resultSchema === 'none' ? {} : { result: schema(scenario.resultSchema, '#r') }),
  };
}

/** The initial state of scenarios with a state binding. */
export function initialState(): GeneratedState {
  return { calls: 0, log: ['start'], temporary: 1 };
}
