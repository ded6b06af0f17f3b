/**
 * Shared workloads of the benchmark: stages, terminals, pass-through
 * handlers and states. Both sides of every figure use these same functions,
 * so a ratio measures only the glue between them.
 */
import type { MiddlewareRegistry, Next, TerminalCall, HandlerCall } from '../src/core/index';
import type { Operation } from './harness';
import { core } from './library';

const { createStage } = core;

/** A streamed chunk of model output. */
export interface DeltaEvent {
  /** Discriminant. */
  readonly type: 'delta';
  /** The chunk. */
  readonly text: string;
}

/** The final model result. */
export interface ResultEvent {
  /** Discriminant. */
  readonly type: 'result';
  /** The whole text. */
  readonly text: string;
}

/** Every event of the benchmark stages. */
export type BenchEvent = DeltaEvent | ResultEvent;

/** The context of the benchmark stages. */
export interface BenchContext {
  /** Conversation id. */
  readonly conversation: string;
  /** A setting Input handlers change. */
  readonly temperature: number;
}

/** A stage without a result guard: every event may be the result. */
export const PlainStage = createStage<BenchContext, BenchEvent, BenchEvent>('benchPlain');

/** A stage whose guard tells streamed deltas from the final result. */
export const GuardedStage = createStage<BenchContext, ResultEvent, BenchEvent>('benchGuarded', {
  isResult: (event): event is ResultEvent => event.type === 'result',
});

/** The context every figure starts from. */
export const CONTEXT: BenchContext = Object.freeze({ conversation: 'bench', temperature: 1 });

/** Preallocated events, so no side pays for creating them. */
export const DELTAS: readonly DeltaEvent[] = Array.from({ length: 4096 }, (_, index) =>
  Object.freeze({ type: 'delta' as const, text: `chunk ${index}` }),
);
/** The result event every terminal ends with. */
export const RESULT: ResultEvent = Object.freeze({ type: 'result', text: 'done' });

/** A terminal that yields `deltas` streamed chunks and then one result event. */
export function streamingTerminal(
  deltas: number,
): (context: BenchContext, run: TerminalCall<unknown>) => AsyncGenerator<BenchEvent, void, undefined> {
  return async function* terminal() {
    for (let index = 0; index < deltas; index++) yield DELTAS[index & 4095] as DeltaEvent;
    yield RESULT;
  };
}

/** The cheapest Wrap handler there is: pass every event of the inner chain through. */
export function passThrough(): (
  context: BenchContext,
  next: Next<BenchContext, BenchEvent>,
  run: HandlerCall,
) => AsyncGenerator<BenchEvent, void, undefined> {
  return async function* passThroughHandler(_context, next) {
    yield* next();
  };
}

/** The run object a hand-nested chain hands its Wrap handlers. */
export function wrapRun(stage: typeof PlainStage | typeof GuardedStage, handler: string): HandlerCall {
  return { stage, signal: new AbortController().signal, handler };
}

/** The run object a hand-nested chain hands its terminal. */
export function terminalRun(stage: typeof PlainStage | typeof GuardedStage): TerminalCall<unknown> {
  return { stage, signal: new AbortController().signal, state: undefined };
}

/**
 * Nests Wrap handlers around a terminal by hand, outermost first, exactly as
 * a framework without a registry would: no checks, no bookkeeping. With
 * `held`, each inner chain a `next` enters is also pushed onto it, for a
 * floor that closes them at the end (`closeHeld` in `floor.ts`).
 */
export function nestByHand<TEvent>(
  handlers: readonly ((context: BenchContext, next: Next<BenchContext, TEvent>, run: HandlerCall) => AsyncIterable<TEvent>)[],
  terminal: (context: BenchContext, run: TerminalCall<unknown>) => AsyncIterable<TEvent>,
  runs: readonly HandlerCall[],
  lastRun: TerminalCall<unknown>,
  context: BenchContext,
  held?: AsyncIterable<TEvent>[],
): AsyncIterable<TEvent> {
  const enter = (index: number): AsyncIterable<TEvent> =>
    index === handlers.length
      ? terminal(context, lastRun)
      : (handlers[index] as (typeof handlers)[number])(
          context,
          (held === undefined
            ? () => enter(index + 1)
            : () => {
                const inner = enter(index + 1);
                held.push(inner);
                return inner;
              }) as Next<BenchContext, TEvent>,
          runs[index] as HandlerCall,
        );
  return enter(0);
}

/** Drains an async iterable and returns its last event. */
export async function drain<TEvent>(events: AsyncIterable<TEvent>): Promise<TEvent | undefined> {
  let last: TEvent | undefined;
  for await (const event of events) last = event;
  return last;
}

/** A registry with `count` pass-through Wrap handlers on `stage`. */
export function registryWithWraps(
  stage: typeof PlainStage | typeof GuardedStage,
  count: number,
): {
  registry: MiddlewareRegistry;
  handlers: ReturnType<typeof passThrough>[];
} {
  const registry = new core.MiddlewareRegistry();
  const handlers = Array.from({ length: count }, () => passThrough());
  handlers.forEach((handler, index) => registry.add(stage.Wrap as typeof PlainStage.Wrap, handler, { name: `pass${index}` }));
  return { registry, handlers };
}

/** One conversation message of a model state. */
export interface StateMessage {
  /** Who said it. */
  readonly role: 'user' | 'assistant';
  /** Its content blocks. */
  readonly content: readonly { readonly text: string }[];
}

/** A model state: the conversation and running usage counters. */
export interface ModelState {
  /** The conversation so far. */
  messages: StateMessage[];
  /** Token counters the terminal updates on every call. */
  usage: { inputTokens: number; outputTokens: number };
}

/** A model state with `count` messages. */
export function modelState(count: number): ModelState {
  return {
    messages: Array.from({ length: count }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: [{ text: `message ${index}: ${'lorem ipsum '.repeat(4)}` }],
    })),
    usage: { inputTokens: 0, outputTokens: 0 },
  };
}

/**
 * An invoke with a state binding whose terminal updates a counter, as a model call does, its events read to the end
 * by `finish`.
 */
export function stateInvoke(
  count: number,
  finish: (events: AsyncGenerator<unknown, void, undefined>) => Promise<unknown> = drain,
): Operation {
  let current = modelState(count);
  const registry = new core.MiddlewareRegistry();
  const binding = {
    get: (): ModelState => current,
    set: (next: ModelState): void => {
      current = next;
    },
  };
  const terminal = async function* countingTerminal(_context: BenchContext, run: { readonly state: ModelState | undefined }) {
    (run.state as ModelState).usage.outputTokens += 1;
    yield { type: 'result' as const, text: 'done' };
  };
  return () => finish(registry.invoke(GuardedStage, CONTEXT, terminal, { state: binding }));
}
