/**
 * Ordering, keyed registration, scopes, bundles and next() policies, shown
 * through describe() and explain(). The README prints this script's output.
 */
import { createStage, MiddlewareRegistry, registration, type Middleware } from '../src/core/index';

type Event = { type: 'text'; text: string } | { type: 'result'; text: string };
const ModelStage = createStage<{ prompt: string }, Extract<Event, { type: 'result' }>, Event>('invokeModel', {
  isResult: (event): event is Extract<Event, { type: 'result' }> => event.type === 'result',
});

const registry = new MiddlewareRegistry();

// Lower order runs outer; ties keep registration order.
registry.add(
  ModelStage.Wrap,
  async function* tracing(_context, next) {
    yield* next();
  },
  { id: 'tracing', order: -100 },
);
registry.add(
  ModelStage.Wrap,
  async function* retry(_context, next) {
    yield* next();
  },
  { id: 'retry', next: 'many' },
);
// Constraints by id beat order: the cache must sit inside the retry.
registry.add(
  ModelStage.Wrap,
  async function* cache(_context, next) {
    yield* next();
  },
  { id: 'cache', after: ['retry'], order: -500 },
);
// A bundle registers several handlers as one unit, with one disposer.
const guardrails: Middleware = {
  name: 'guardrails',
  setup(registrar) {
    registrar.add(
      ModelStage.Input,
      function redactInput(context) {
        return context;
      },
      { id: 'redact-input' },
    );
    registrar.add(
      ModelStage.Output,
      function redactOutput(result) {
        return result;
      },
      { id: 'redact-output' },
    );
  },
};
registry.use(guardrails);
// Keyed replacement: same id, same place, new handler.
registry.add(
  ModelStage.Wrap,
  async function* retryWithBackoff(_context, next) {
    yield* next();
  },
  { id: 'retry', replace: true },
);

// A child scope inherits live and nests its own handlers inside.
const perUser = registry.child();
perUser.add(
  ModelStage.Wrap,
  async function* quota(_context, next) {
    yield* next();
  },
  { id: 'quota', next: 'at-most-once' },
);

console.log(
  perUser.explain(ModelStage, {
    use: [
      registration(ModelStage.Wrap, async function* audit(_context, next) {
        yield* next();
      }),
    ],
  }),
);
console.log();
for (const entry of perUser.describe(ModelStage)) {
  console.log(
    `${entry.phase.padEnd(6)} ${String(entry.position).padEnd(2)} ${entry.name.padEnd(16)} source=${entry.source}${entry.bundle === undefined ? '' : ` bundle=${entry.bundle}`} depth=${entry.depth}`,
  );
}
