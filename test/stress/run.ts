/**
 * Memory stress checks. They need a real garbage collector, so they run in
 * their own process rather than under vitest:
 *
 *   node --expose-gc --import tsx test/stress/run.ts      (npm run test:stress)
 *
 * Each check prints one line and the process exits non-zero if any fails.
 * Heap figures are measured after forcing collection, so they show what the
 * invoke keeps alive, not garbage waiting to be collected.
 */
import { createStage, MiddlewareRegistry, type Disposer, type Next } from '../../src/core/index';
import { timeout } from '../../src/middleware/index';

const MEGABYTE = 1024 * 1024;
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) {
  console.error('test/stress/run.ts needs a collector: run it as `node --expose-gc --import tsx test/stress/run.ts`.');
  process.exit(2);
}

function heapUsed(): number {
  (collect as () => void)();
  (collect as () => void)();
  return process.memoryUsage().heapUsed;
}

interface Check {
  readonly name: string;
  readonly passed: boolean;
  readonly detail: string;
}

const checks: Check[] = [];
function record(name: string, passed: boolean, detail: string): void {
  checks.push({ name, passed, detail });
  console.log(`${passed ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
}

async function* passThrough(_context: number, next: Next<number, number>): AsyncGenerator<number, void, undefined> {
  yield* next();
}

/** 1,000,000 events through 10 pass-through layers: heap growth (peak and final) under 20 MB. */
async function streamMillion(mode: 'pass' | 'hold'): Promise<void> {
  const EVENTS = 1_000_000;
  // Object events (not small integers, which V8 stores inline) so any retained event shows in the heap.
  const stage = createStage<number, { index: number }>(`stream-${mode}`, { isResult: (event) => event.index === EVENTS - 1 });
  const registry = new MiddlewareRegistry();
  for (let layer = 0; layer < 10; layer++) {
    registry.add(stage.Wrap, async function* passThroughObjects(_context, next) {
      yield* next();
    });
  }
  // An Output handler makes the invoke hold result candidates (hold mode).
  if (mode === 'hold') registry.add(stage.Output, (result) => result);
  const baseline = heapUsed();
  let peak = 0;
  let count = 0;
  let last = -1;
  const started = performance.now();
  for await (const event of registry.invoke(stage, 0, async function* numbers() {
    for (let index = 0; index < EVENTS; index++) yield { index };
  })) {
    count++;
    last = event.index;
    if (count % 100_000 === 0) peak = Math.max(peak, heapUsed() - baseline);
  }
  const seconds = (performance.now() - started) / 1000;
  const final = heapUsed() - baseline;
  peak = Math.max(peak, final);
  const passed = count === EVENTS && last === EVENTS - 1 && peak < 20 * MEGABYTE;
  record(
    `1,000,000 events through 10 Wrap layers (${mode} mode)`,
    passed,
    `${count} events in ${seconds.toFixed(1)} s, peak heap growth ${(peak / MEGABYTE).toFixed(2)} MB, final ${(final / MEGABYTE).toFixed(2)} MB (limit 20 MB)`,
  );
}

/** 100,000 registrations and removals (half of them with ordering constraints) leave the registry as small as it started. */
function registrationChurn(): void {
  const registry = new MiddlewareRegistry({ onWarning: () => undefined });
  const stages = Array.from({ length: 10 }, (_unused, index) => createStage<number, number>(`churn${index}`));
  const warmup = registry.add((stages[0] as (typeof stages)[0]).Wrap, passThrough, { id: 'warmup' });
  warmup();
  const baseline = heapUsed();
  for (let round = 0; round < 100; round++) {
    const disposers: Disposer[] = [];
    for (let index = 0; index < 1000; index++) {
      const stage = stages[index % 10] as (typeof stages)[0];
      // Constraints name ids of the same stage (every tenth index), so the constraint index fills up too.
      const options =
        index % 2 === 0
          ? { id: `r${round}-${index}`, ...(index >= 20 ? { after: [`r${round}-${index - 10}`], before: [`later-${index}`] } : {}) }
          : {};
      disposers.push(registry.add(stage.Wrap, passThrough, options));
    }
    for (const dispose of disposers) dispose();
  }
  const growth = heapUsed() - baseline;
  const empty = stages.every((stage) => registry.describe(stage).length === 0);
  record(
    '100,000 registrations and removals',
    empty && growth < 1 * MEGABYTE,
    `registry empty: ${empty}, heap growth ${(growth / 1024).toFixed(1)} KB (limit 1 MB)`,
  );
}

let finalised = 0;
// Module-level: a FinalizationRegistry that is itself collected never calls back.
const finalisation = new FinalizationRegistry<number>(() => {
  finalised++;
});

/** Invokes abandoned mid-stream (never closed) are collected: they hold nothing outside themselves. */
async function abandonedInvokes(): Promise<void> {
  const INVOKES = 10_000;
  const stage = createStage<number, number>('abandoned');
  const registry = new MiddlewareRegistry();
  registry.add(stage.Wrap, passThrough);
  const controller = new AbortController();
  finalised = 0;
  const baseline = heapUsed();
  for (let index = 0; index < INVOKES; index++) {
    const events = registry.invoke(
      stage,
      index,
      async function* endless(context) {
        const payload = new Array<number>(100).fill(context);
        for (;;) yield payload.length;
      },
      { signal: controller.signal },
    );
    await events.next();
    finalisation.register(events, index);
  }
  for (let turn = 0; turn < 20 && finalised < INVOKES; turn++) {
    heapUsed();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const growth = heapUsed() - baseline;
  const passed = finalised >= INVOKES * 0.99 && growth < 2 * MEGABYTE;
  record(
    '10,000 invokes abandoned mid-stream',
    passed,
    `${finalised} of ${INVOKES} collected, heap growth ${(growth / 1024).toFixed(1)} KB (limit 2 MB)`,
  );
}

/** 40,000 invokes under one long-lived signal, each narrowing it (as `timeout()` does): memory stays flat. */
async function narrowingUnderLongLivedSignal(): Promise<void> {
  const INVOKES = 40_000;
  const stage = createStage<number, number>('narrowing');
  const registry = new MiddlewareRegistry();
  registry.add(stage.Wrap, async function* deadline(_context, next) {
    const local = new AbortController();
    yield* next(undefined, { signal: local.signal });
  });
  const longLived = new AbortController();
  const terminal = async function* one(context: number): AsyncGenerator<number> {
    yield context;
  };
  const run = async (count: number): Promise<void> => {
    for (let index = 0; index < count; index++) {
      await registry.run(stage, index, terminal, { signal: longLived.signal });
      // A macrotask turn now and then, as the I/O of a real model call gives: objects a WeakRef was
      // made to stay alive until the current job ends (ECMAScript's KeepDuringJob), however many invokes it runs.
      if (index % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await run(2_000);
  const baseline = heapUsed();
  const started = performance.now();
  await run(INVOKES);
  const seconds = (performance.now() - started) / 1000;
  const growth = heapUsed() - baseline;
  record(
    `${INVOKES.toLocaleString('en')} invokes narrowing one long-lived signal`,
    growth < 0.5 * MEGABYTE,
    `${seconds.toFixed(1)} s, heap growth ${(growth / 1024).toFixed(1)} KB (limit 512 KB)`,
  );
}

/**
 * One Wrap handler making 50,000 sequential next() calls in one invoke (with
 * and without narrowing each): the chains that ended are released at once, so
 * the heap measured inside the handler, while the invoke is still open, stays flat.
 */
async function sequentialNextCalls(narrowed: boolean): Promise<void> {
  const CALLS = 50_000;
  const stage = createStage<number, number>(`sequential-${narrowed ? 'narrowed' : 'plain'}`);
  const registry = new MiddlewareRegistry();
  let growth = 0;
  registry.add(stage.Wrap, async function* retrying(_context, next) {
    let baseline = 0;
    let last = 0;
    for (let call = 0; call < CALLS; call++) {
      if (call === 5_000) baseline = heapUsed();
      const local = narrowed ? new AbortController() : undefined;
      for await (const event of local === undefined ? next() : next(undefined, { signal: local.signal })) last = event;
      // As in narrowingUnderLongLivedSignal: a macrotask turn now and then ends the job that keeps WeakRef targets alive.
      if (call % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
    }
    growth = heapUsed() - baseline;
    yield last;
  });
  const started = performance.now();
  const result = await registry.run(
    stage,
    0,
    async function* payload(context) {
      // A payload per call, so a chain kept alive shows in the heap.
      const held = new Array<number>(16).fill(context);
      yield held.length;
    },
    { signal: new AbortController().signal },
  );
  const seconds = (performance.now() - started) / 1000;
  record(
    `${CALLS.toLocaleString('en')} sequential next() calls in one invoke${narrowed ? ', each narrowing the signal' : ''}`,
    result === 16 && growth < 1 * MEGABYTE,
    `${seconds.toFixed(1)} s, heap growth from call 5,000 to the last while the invoke is open ${(growth / 1024).toFixed(1)} KB (limit 1 MB)`,
  );
}

/**
 * Invokes under `timeout()` with an hour's deadline, abandoned or closed after
 * their first event: no timer is left waiting for the deadline, so each chain
 * is collected at once instead of an hour later.
 */
async function abandonedUnderTimeout(): Promise<void> {
  const INVOKES = 10_000;
  const HOUR = 60 * 60 * 1000;
  const stage = createStage<number, number>('abandoned-timeout');
  const registry = new MiddlewareRegistry();
  registry.add(stage.Wrap, timeout(HOUR));
  const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
  finalised = 0;
  const timersBefore = timers();
  const baseline = heapUsed();
  for (let index = 0; index < INVOKES; index++) {
    const events = registry.invoke(stage, index, async function* endless(context) {
      const payload = new Array<number>(100).fill(context);
      for (;;) yield payload.length;
    });
    await events.next();
    // Half are closed by their consumer, half simply dropped.
    if (index % 2 === 0) await events.return(undefined);
    finalisation.register(events, index);
  }
  const timersLeft = timers() - timersBefore;
  for (let turn = 0; turn < 20 && finalised < INVOKES; turn++) {
    heapUsed();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const growth = heapUsed() - baseline;
  const passed = timersLeft <= 0 && finalised >= INVOKES * 0.99 && growth < 2 * MEGABYTE;
  record(
    `${INVOKES.toLocaleString('en')} invokes under timeout(1 hour) closed or abandoned after one event`,
    passed,
    `${timersLeft} timers left, ${finalised} of ${INVOKES} collected, heap growth ${(growth / 1024).toFixed(1)} KB (limit 2 MB, no timers)`,
  );
}

await streamMillion('pass');
await streamMillion('hold');
registrationChurn();
await abandonedInvokes();
await abandonedUnderTimeout();
await narrowingUnderLongLivedSignal();
await sequentialNextCalls(false);
await sequentialNextCalls(true);

const failed = checks.filter((check) => !check.passed);
if (failed.length > 0) {
  console.error(`${failed.length} stress check(s) failed.`);
  process.exit(1);
}
