/**
 * Reliability scenarios about many invokes and abandoned ones: concurrent
 * invokes, concurrent state writeback, an invoke the consumer stops pulling.
 */
import { createStage, MiddlewareRegistry, type Disposer } from '../../src/core/index';
import type { Json } from '../cases/case-base';
import { drain, isResult, turns, type Events, type Observed, type Parameters } from './scenario-tools';

/** `concurrent-invokes`: invokes created between registry changes and run interleaved (MW-065). */
export async function concurrentInvokes(testCase: Parameters): Promise<Observed> {
  const stage = createStage<{ name: string; turns: number; deltas: number }, Json>('concurrent', { isResult: (event) => isResult(event) });
  const registry = new MiddlewareRegistry();
  const disposers = new Map<string, Disposer>();
  const running = new Map<string, { events: Events; seen: Json[] }>();
  for (const step of testCase.steps as Record<string, Json>[]) {
    if (typeof step.add === 'string') {
      const tag = step.add;
      disposers.set(
        tag,
        registry.add(stage.Wrap, async function* tagging(_context, next) {
          for await (const event of next())
            yield { ...(event as Record<string, Json>), tags: [...((event as { tags?: Json[] }).tags ?? []), tag] };
        }),
      );
    } else if (typeof step.remove === 'string') {
      disposers.get(step.remove)?.();
    } else if (typeof step.pull === 'string') {
      const invoke = running.get(step.pull) as { events: Events; seen: Json[] };
      const pulled = await invoke.events.next();
      if (pulled.done !== true) invoke.seen.push(pulled.value);
    } else {
      const name = step.invoke as string;
      const context = { name, turns: (step.turns as number | undefined) ?? 0, deltas: (step.deltas as number | undefined) ?? 0 };
      const events = registry.invoke(stage, context, async function* terminal(context) {
        await turns(context.turns);
        for (let delta = 0; delta < context.deltas; delta++) yield { invoke: context.name, delta, tags: [] };
        yield { invoke: context.name, tags: [], result: true };
      });
      running.set(name, { events, seen: [] });
    }
  }
  const rests = await Promise.all([...running.values()].map(({ events }) => drain(events)));
  return Object.fromEntries(
    [...running].map(([name, { seen }], index) => [name, [...seen, ...(rests[index] as { events: Json[] }).events]]),
  );
}

/** `concurrent-writeback`: invokes sharing one state binding, finishing in a given order (MW-066). */
export async function concurrentWriteback(testCase: Parameters): Promise<Observed> {
  const count = testCase.invokes as number;
  let store: Json = { count: 0, writer: -1 };
  const writes: Json[] = [];
  const binding = {
    get: () => store,
    set: (next: Json) => {
      store = next;
      writes.push(next);
    },
  };
  const stage = createStage<number, number>('writeback');
  const registry = new MiddlewareRegistry();
  const gates = Array.from({ length: count }, () => {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => {
      open = resolve;
    });
    return { promise, open };
  });
  let started = 0;
  const invokes = gates.map((_gate, index) =>
    drain(
      registry.invoke(
        stage,
        index,
        async function* terminal(context, run) {
          const draft = run.state as { count: number; writer: number };
          draft.count += 1;
          draft.writer = context;
          started++;
          await (gates[context] as { promise: Promise<void> }).promise;
          yield context;
        },
        { state: binding },
      ) as Events,
    ),
  );
  while (started < count) await turns(1);
  for (const index of testCase.finishOrder as number[]) {
    const before = writes.length;
    (gates[index] as { open: () => void }).open();
    while (writes.length === before) await turns(1);
  }
  await Promise.all(invokes);
  return { writes, final: store };
}

/** `abandoned`: an invoke whose consumer stops pulling, garbage-collected (MW-067); `collectGarbage` forces a full collection. */
export async function abandoned(testCase: Parameters, collectGarbage: () => Promise<void>): Promise<Observed> {
  const trace: string[] = [];
  const stage = createStage<Json, Json>('abandoned');
  const registry = new MiddlewareRegistry();
  const extra = new AbortController();
  registry.add(stage.Wrap, async function* layer(_context, next) {
    try {
      yield* testCase.narrowed === true ? next(undefined, { signal: extra.signal }) : next();
    } finally {
      trace.push('layer-f');
    }
  });
  const { signal, listeners } = listenedSignal();
  // Pulled in a function of its own, so that nothing here refers to the invoke afterwards.
  const abandon = async (): Promise<void> => {
    const events = registry.invoke(
      stage,
      {},
      async function* terminal() {
        try {
          for (let index = 0; ; index++) yield index;
        } finally {
          trace.push('tf');
        }
      },
      { signal },
    );
    for (let pull = 0; pull < (testCase.pulls as number); pull++) await events.next();
  };
  await abandon();
  await turns(1);
  // Read before the collection: the library closes nothing, but a runtime may finalise collected generators (MW-067).
  const closedByTheLibrary = [...trace];
  await collectGarbage();
  return { listeners: listeners(), trace: closedByTheLibrary };
}

/**
 * A signal that counts its abort listeners: its own add and remove methods
 * keep the count (listener and capture flag, as EventTarget tells
 * registrations apart) before passing on, so it works in any runtime.
 */
function listenedSignal(): { signal: AbortSignal; listeners: () => number } {
  const { signal } = new AbortController();
  const registered = new Map<unknown, Set<boolean>>();
  const capture = (options: unknown): boolean =>
    typeof options === 'boolean' ? options : (options as { capture?: boolean } | undefined)?.capture === true;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (type: string, listener: unknown, options?: unknown) => {
    if (type === 'abort' && listener !== null) registered.set(listener, (registered.get(listener) ?? new Set()).add(capture(options)));
    add(type, listener as EventListener, options as AddEventListenerOptions);
  };
  signal.removeEventListener = (type: string, listener: unknown, options?: unknown) => {
    if (type === 'abort') registered.get(listener)?.delete(capture(options));
    remove(type, listener as EventListener, options as EventListenerOptions);
  };
  return { signal, listeners: () => [...registered.values()].reduce((count, captures) => count + captures.size, 0) };
}
