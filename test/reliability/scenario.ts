/**
 * Generated scenarios for the model-based property test: a scenario is plain
 * data (so fast-check can print and shrink it), and the handlers are built
 * from it afresh for each engine run. Both engines (the library and the
 * reference interpreter) run the very same handler code; only the engine
 * differs, so any difference in the trace is a difference of the engines.
 */
import { MiddlewareResult } from '../../src/index';
import type { NextPolicy } from '../../src/stage/types';

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

/** Engine errors are named by code (the engines word messages differently), user errors by message. */
function caughtLabel(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}

type AnyWrap = (
  context: string,
  next: (context?: string) => AsyncGenerator<unknown, void, undefined>,
) => AsyncGenerator<unknown, void, undefined>;

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

function wrapHandler(behaviour: WrapBehaviour, index: number, label: string, trace: string[], fail: (what: string) => UserError): AnyWrap {
  switch (behaviour.kind) {
    case 'pass':
      return async function* pass(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next();
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'filter':
      return async function* filter(_context, next) {
        trace.push(`${label}:enter`);
        let seen = 0;
        try {
          for await (const event of next()) {
            // Drops every second event (never the only one).
            if (seen++ % 2 === 1) continue;
            yield event;
          }
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'map':
      return async function* map(_context, next) {
        trace.push(`${label}:enter`);
        try {
          for await (const event of next()) yield `${String(event)}/${index}`;
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'inject-before':
    case 'inject-after': {
      const injected = `${behaviour.result ? 'r' : 'd'}:${label}${behaviour.bang ? '!' : ''}`;
      const before = behaviour.kind === 'inject-before';
      return async function* inject(_context, next) {
        trace.push(`${label}:enter`);
        try {
          if (before) yield injected;
          yield* next();
          if (!before) yield injected;
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    }
    case 'short-circuit':
      return async function* shortCircuit(context) {
        trace.push(`${label}:enter`);
        try {
          yield `r:${context}:${label}`;
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'retry': {
      const attempts = behaviour.attempts;
      return async function* retry(_context, next) {
        trace.push(`${label}:enter`);
        try {
          for (let attempt = 1; ; attempt++) {
            try {
              yield* next();
              return;
            } catch (error) {
              trace.push(`${label}:caught ${attempt}`);
              if (attempt >= attempts) throw error;
            }
          }
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    }
    case 'throw-before':
      return async function* throwBefore() {
        trace.push(`${label}:enter`);
        throw fail('before');
      };
    case 'throw-after':
      return async function* throwAfter(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next();
          throw fail('after');
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'catch-recover':
      return async function* catchRecover(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next();
        } catch (error) {
          trace.push(`${label}:caught ${caughtLabel(error)}`);
          yield `r:recovered:${label}`;
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'replace-context':
      return async function* replaceContext(context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next(`${context}~${index}`);
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'peek':
      return async function* peek(_context, next) {
        trace.push(`${label}:enter`);
        try {
          // Pulls one event by hand and leaves the inner chain open: the invoke must close it.
          const inner = next();
          const first = await inner.next();
          if (first.done !== true) yield first.value;
          yield `r:peeked:${label}`;
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'break-after': {
      const count = behaviour.count;
      return async function* breakAfter(_context, next) {
        trace.push(`${label}:enter`);
        let taken = 0;
        try {
          for await (const event of next()) {
            yield event;
            if (++taken >= count) break;
          }
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    }
    case 'call-twice':
      return async function* callTwice(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next();
          trace.push(`${label}:again`);
          yield* next();
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'interleave':
      return async function* interleave(context, next) {
        trace.push(`${label}:enter`);
        try {
          // Two inner chains open at once, pulled in turn (hedging without a race).
          const chains = [next(), next(`${context}~${index}b`)];
          const open = [true, true];
          while (open[0] === true || open[1] === true) {
            for (let which = 0; which < 2; which++) {
              if (open[which] !== true) continue;
              const pulled = await (chains[which] as AsyncGenerator<unknown, void, undefined>).next();
              if (pulled.done === true) open[which] = false;
              else yield pulled.value;
            }
          }
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'throw-in-finally':
      return async function* throwInFinally(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next();
        } finally {
          trace.push(`${label}:finally`);
          // eslint-disable-next-line no-unsafe-finally -- the scenario fails in its finally on purpose
          throw fail('finally');
        }
      };
    case 'yield-undefined':
      return async function* yieldUndefined(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield undefined;
          yield* next();
        } finally {
          trace.push(`${label}:finally`);
        }
      };
  }
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
