/**
 * A registry whose handlers keep changing, and a model of which handlers an
 * invoke started at a given moment must run. Used by the concurrency test
 * that churns handlers while thousands of invokes are mid-stream.
 *
 * Every handler leaves its tag on what passes through it: Input handlers on
 * the context (`inputs`), Wrap handlers on each event (`wraps`), Output
 * handlers on the result (`outputs`). The terminal copies the context's tags
 * into its events, so each delivered event shows exactly which handlers of
 * each phase ran for it.
 */
import { createStage, MiddlewareRegistry, type Disposer, type MiddlewareResult, type Next } from '../../src/core/index';

/** The context of a churned invoke: its number and the Input tags it collected. */
export interface ChurnContext {
  readonly invoke: number;
  readonly inputs: readonly string[];
}

/** An event of a churned invoke: where it came from and the tags it carries. */
export interface ChurnEvent {
  readonly invoke: number;
  /** The terminal call (1 or 2: the outermost handler restarts the inner chain once). */
  readonly call: number;
  /** Position of the event in the terminal's stream. */
  readonly seq: number;
  readonly inputs: readonly string[];
  readonly wraps: readonly string[];
  readonly outputs: readonly string[];
  readonly final: boolean;
}

/** The stage every churned invoke runs. */
export const churnStage = createStage<ChurnContext, ChurnEvent, ChurnEvent>('churned', { isResult: (event) => event.final });

/** The tags an invoke's events must carry, per phase, in the order they are appended. */
export interface ChurnTags {
  readonly inputs: readonly string[];
  readonly wraps: readonly string[];
  readonly outputs: readonly string[];
}

type ChurnPhase = 'input' | 'wrap' | 'output';

/** Deterministic pseudo-random numbers in [0, 1), so a failure replays exactly. */
export function seededRandom(seed: number): () => number {
  let value = seed >>> 0;
  return () => {
    // Numerical Recipes LCG constants: enough spread for picking actions and indexes.
    value = (Math.imul(value, 1664525) + 1013904223) >>> 0;
    return value / 2 ** 32;
  };
}

/** Events of one terminal call: two deltas and a result, with the context's Input tags. */
async function* churnTerminal(context: ChurnContext, call: number): AsyncGenerator<ChurnEvent, void, undefined> {
  for (let seq = 0; seq < 3; seq++) {
    // A microtask between events, so pulls of different invokes interleave inside the engine.
    await Promise.resolve();
    yield { invoke: context.invoke, call, seq, inputs: context.inputs, wraps: [], outputs: [], final: seq === 2 };
  }
}

/**
 * The outermost handler, registered once: it forwards the first event of one
 * inner chain, closes it, and forwards the rest of a second inner chain.
 * Why: the second `next()` call happens on a later pull, after the registry
 * changed, so the inner layers it enters must still be those of the start.
 */
async function* restart(_context: ChurnContext, next: Next<ChurnContext, ChurnEvent>): AsyncGenerator<ChurnEvent, void, undefined> {
  const first = next();
  const head = await first.next();
  if (head.done === true) return;
  yield head.value;
  await first.return();
  let skipped = false;
  for await (const event of next()) {
    if (skipped) yield event;
    skipped = true;
  }
}

/** A registry with one permanent restarting handler plus handlers added and removed at random. */
export class ChurningRegistry {
  /** The registry the invokes run on. */
  readonly registry = new MiddlewareRegistry();
  /** How many times `churn()` changed the registry. */
  changes = 0;
  private readonly live: { phase: ChurnPhase; tag: string; dispose: Disposer }[] = [];
  private readonly calls = new Map<number, number>();
  private added = 0;

  constructor(private readonly random: () => number) {
    this.registry.add(churnStage.Wrap, restart, { order: -1 });
  }

  /** Starts invoke number `invoke` and returns it with the tags its events must carry. */
  start(invoke: number): { events: AsyncGenerator<ChurnEvent, void, undefined>; tags: ChurnTags } {
    const events = this.registry.invoke(churnStage, { invoke, inputs: [] }, (context) => {
      const call = (this.calls.get(context.invoke) ?? 0) + 1;
      this.calls.set(context.invoke, call);
      return churnTerminal(context, call);
    });
    return { events, tags: this.expectedTags() };
  }

  /**
   * The tags of the handlers registered now: Input handlers run in
   * registration order; Wrap tags are appended innermost first and Output
   * handlers transform innermost first, so both come out in reverse
   * registration order.
   */
  expectedTags(): ChurnTags {
    const of = (phase: ChurnPhase): string[] => this.live.filter((entry) => entry.phase === phase).map((entry) => entry.tag);
    return { inputs: of('input'), wraps: of('wrap').reverse(), outputs: of('output').reverse() };
  }

  /** Adds or removes one to three handlers, keeping between 2 and 9 registered. */
  churn(): void {
    const actions = 1 + Math.floor(this.random() * 3);
    for (let action = 0; action < actions; action++) {
      const add = this.live.length < 2 || (this.live.length < 9 && this.random() < 0.5);
      if (add) this.add((['input', 'wrap', 'output'] as const)[Math.floor(this.random() * 3)] as ChurnPhase);
      else (this.live.splice(Math.floor(this.random() * this.live.length), 1)[0] as { dispose: Disposer }).dispose();
      this.changes++;
    }
  }

  private add(phase: ChurnPhase): void {
    const tag = `${phase[0] as string}${this.added++}`;
    const dispose =
      phase === 'input'
        ? this.registry.add(churnStage.Input, (context) => ({ ...context, inputs: [...context.inputs, tag] }), { name: tag })
        : phase === 'wrap'
          ? this.registry.add(
              churnStage.Wrap,
              async function* tagging(_context, next) {
                for await (const event of next()) yield { ...event, wraps: [...event.wraps, tag] };
              },
              { name: tag },
            )
          : this.registry.add(
              churnStage.Output,
              (result: MiddlewareResult<ChurnEvent>) => result.replace({ ...result.value, outputs: [...result.value.outputs, tag] }),
              { name: tag },
            );
    this.live.push({ phase, tag, dispose });
  }
}
