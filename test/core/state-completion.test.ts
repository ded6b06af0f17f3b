/**
 * A terminal call under a state binding is recorded when it completes
 * (MW-028). The isolation wraps a terminal that is not the outermost layer in
 * a recorder that sees its end, unless the terminal's iterator reports its
 * completion itself (`reportCompletion`, as the agent's model terminal does).
 */
import { describe, expect, it } from 'vitest';
import type { LayerGenerator } from '../../src/core/layer';
import { reportCompletion, StateIsolation, StateRecorder } from '../../src/core/state';

async function* yieldAll(...events: unknown[]): LayerGenerator {
  for (const event of events) yield event;
}

/** A terminal's iterator that reports its completion when `complete` is called. */
function reporting(): { events: LayerGenerator; complete: () => void } {
  let callback: (() => void) | undefined;
  const events = Object.assign(yieldAll('a'), {
    [reportCompletion]: (given: () => void) => {
      callback = given;
    },
  });
  return { events, complete: () => callback?.() };
}

function isolation(): { state: StateIsolation<{ count: number }>; writes: { count: number }[] } {
  const writes: { count: number }[] = [];
  return { writes, state: new StateIsolation({ get: () => ({ count: 0 }), set: (next) => writes.push(next) }, 'model') };
}

describe('StateIsolation.terminalCall', () => {
  it('wraps an inner terminal that does not report its completion in a recorder', () => {
    const { state } = isolation();
    expect(state.terminalCall(() => yieldAll('a'), false)).toBeInstanceOf(StateRecorder);
  });

  it('hands an inner terminal that reports its completion back as it is, and records its draft when it reports', () => {
    const { state, writes } = isolation();
    const { events, complete } = reporting();
    const called = state.terminalCall((draft) => {
      draft.count = 5;
      return events;
    }, false);
    state.writeBack();
    const before = [...writes];
    complete();
    state.writeBack();
    expect({ same: called === events, before, after: writes }).toEqual({ same: true, before: [], after: [{ count: 5 }] });
  });

  it('records nothing for a reporting terminal that never reports (closed early, or failed)', () => {
    const { state, writes } = isolation();
    state.terminalCall((draft) => {
      draft.count = 6;
      return reporting().events;
    }, false);
    state.writeBack();
    expect(writes).toEqual([]);
  });
});
