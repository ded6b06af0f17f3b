/**
 * An agent run's stage invokes read the flag of the run's controller on
 * every event instead of the signal's `aborted`, which on Node 20 costs a
 * cache miss per read. The agent kit makes the controller, the core's invoke
 * looks its flag up: that works only when the two entry points of a build
 * share the module that keeps the flags. Run from the installed package in
 * both formats, the run's signal must be read less often than the model
 * streams events (each invoke reading it would read it several times per event).
 */
import { describe, expect, it } from 'vitest';
import { runScript } from './consumer';

describe.each([
  ['ESM', 'esm.mjs'],
  ['CommonJS', 'cjs.cjs'],
])('an agent run of the %s build, under the core registry of the same build', (_format, script) => {
  it("reads its signal's aborted fewer times than the model streams events", () => {
    const { runSignal } = JSON.parse(runScript(script)) as {
      runSignal: { modelEvents: number; reads: number; stopReason: string };
    };
    expect(runSignal.stopReason).toBe('endTurn');
    expect(runSignal.reads).toBeLessThan(runSignal.modelEvents);
  });
});
