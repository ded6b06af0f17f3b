/** The stage, state and state binding the state tests of the invoke share. */
import { createStage, type StateBinding, type Terminal } from '../../src/core/index';

/** The context of the test stage. */
export interface Context {
  /** The prompt a terminal echoes. */
  readonly prompt: string;
}
/** The model state the tests bind. */
export interface ModelState {
  /** How many terminal calls changed it. */
  count: number;
  /** The prompts the terminal calls saw. */
  notes: string[];
  /** A nested branch left untouched by most tests. */
  settings: { model: string };
  /** A key the tests delete. */
  scratch?: string;
}
/** The test stage. */
export const Stage = createStage<Context, string>('model');

/** A state binding over `initial` that counts its reads and keeps every write. */
export function store(initial: ModelState): {
  binding: StateBinding<ModelState>;
  writes: ModelState[];
  reads: () => number;
  current: () => ModelState;
} {
  let current = initial;
  let reads = 0;
  const writes: ModelState[] = [];
  return {
    writes,
    reads: () => reads,
    current: () => current,
    binding: {
      get: () => {
        reads++;
        return current;
      },
      set: (next) => {
        writes.push(next);
        current = next;
      },
    },
  };
}

/** A fresh state: count 0, no notes, a nested setting and a scratch key. */
export const initial = (): ModelState => ({ count: 0, notes: [], settings: { model: 'small' }, scratch: 'tmp' });

/** A terminal that records what it saw, then changes its draft. */
export function counting(seen: unknown[]): Terminal<Context, string, ModelState> {
  return async function* terminal(context, run) {
    const state = run.state as ModelState;
    seen.push({ prompt: context.prompt, count: state.count, notes: [...state.notes] });
    state.count += 1;
    state.notes.push(context.prompt);
    yield context.prompt;
  };
}
