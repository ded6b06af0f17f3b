/**
 * The agent kit and the core are separate entry points of the built package,
 * each build bundling them from shared chunks. The model terminal reports
 * its completion to the core's state isolation with a symbol of the core's,
 * and is pulled with the invoke's shortcut as an iterator built on the
 * core's `QueuedIterator`: both hold only when the two entry points share
 * those modules. Run from the installed package in both formats, a Wrap
 * handler's `next()` must hand out the terminal's own iterator (no recorder
 * around it), and the state of the completed call must be written back.
 */
import { describe, expect, it } from 'vitest';
import { runScript } from './consumer';

describe.each([
  ['ESM', 'esm.mjs'],
  ['CommonJS', 'cjs.cjs'],
])('the model terminal of the %s build, under the core registry of the same build', (_format, script) => {
  it("is handed to a Wrap handler as it is, and the completed call's state is written back", () => {
    const observed = JSON.parse(runScript(script)) as { modelTerminal: unknown };
    expect(observed.modelTerminal).toEqual({ handedOutAsReturned: true, written: { calls: 1 } });
  });
});
