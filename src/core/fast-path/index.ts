/**
 * The fast path: the code that exists only to be faster than the language's
 * own constructs on the per-event path. Every other file imports it from
 * here (the core directly, the layers above through `core/internal.ts`);
 * nothing else in the package knows V8's or the promise machinery's habits.
 *
 * The contract. Each part behaves exactly like the plain construct it
 * replaces: the same values, errors, order of side effects and answers to
 * concurrent calls, observable by no test but a timer. A caller may rely on
 * that and on nothing more; a change here is proved against the plain
 * construct (the tests in `test/core/fast-path/` run both side by side), and
 * kept only while a benchmark on the built package shows it pays
 * (`bench/README.md`, "What each speed trick buys": each part against its
 * plain construct).
 *
 * | part | replaces | must behave exactly like |
 * | --- | --- | --- |
 * | {@link SerialAsyncGenerator} (`serial-async-generator.ts`): a hand-written async generator whose consumer calls run one at a time; `nextInto` is one fused pull, which a subclass supports with `tryDirectPull` and `deliverDirect` | an `async function*` layer of our own per iterator, and `next().then(onAnswer, onFailure)` between two of ours (a promise reaction per iterator per event, where a stack of them then costs one) | a native async generator: calls queued in call order; `nextInto(a, b)` as `next().then(a, b)` |
 * | {@link hasNativeNext}, {@link isOwnIterator} (`native-next.ts`): which layers may be pulled with a bare `.then`, and which with `nextInto` | guarding every pull of a layer of any shape (`pullFrom` in `layer.ts`) | that guarded pull |
 * | {@link PassThroughGenerator}, {@link Delegation} (`pass-through.ts`): a generator's stretches of pass-through run without it | `for await (const event of source) yield observe(event)` inside the generator | that loop, including closing the source when the loop is left early |
 * | {@link track}, {@link TrackedChain} (`tracked-chain.ts`): the first inner chains of an invoke held as they are, the rest wrapped to be forgotten when they end | wrapping every inner chain (`async function*` with `yield*` and a `finally` that reports its end) | that wrapper: the same events, and the same chains closed when the invoke settles |
 * | {@link OwnedAbortController} (`owned-abort-controller.ts`): a flag read instead of `signal.aborted` for signals only the library aborts | `signal.aborted` (a megamorphic read on Node 20, where every signal has a hidden class of its own) | `signal.aborted`: the flag is set just before the signal aborts, with no code of anyone else in between |
 * | {@link lastEvent} (`last-event.ts`): the last event of an iterator of ours, drained with `nextInto` | `for await (const event of events) last = event` (an async step per event) | that loop: the same last event, the same failure, other iterables drained by the loop itself |
 * | {@link recordExtension}, {@link sharedStart} (`array-lineage.ts`): which frozen arrays extend which, recorded as a history appends | comparing two arrays item by item from the first (the AI SDK adapter's check of how much of a conversation it has converted already) | that comparison: the same count, where the arrays' lineage is recorded; otherwise no answer, and the caller compares |
 * | hidden-class keepers: an instance that never runs, in a static field of `Invocation` and of {@link OwnedAbortController}, so that the class's hidden class survives full collections | nothing (the engine's default) | nothing: it changes only how soon code is optimised again after a full collection |
 *
 * The hidden-class keepers are the one trick that cannot live here: it has to be a static field of the class it
 * keeps, since a bundler drops a store that nothing reads (a keeper kept in an array of this module was tree-shaken
 * out of the build, and `gc_pressure` went from 1.2 to 2.2). Its construction is marked pure (`@__PURE__`), as is
 * every value this folder computes when it loads, so that a bundle that does not use the class drops it too.
 *
 * @packageDocumentation
 */
export { recordExtension, sharedStart } from './array-lineage';
export { hasNativeNext, isOwnIterator, nativeNext } from './native-next';
export { lastEvent } from './last-event';
export { OwnedAbortController } from './owned-abort-controller';
export { Delegation, PassThroughGenerator } from './pass-through';
export type { DelegatingGenerator } from './pass-through';
export { SerialAsyncGenerator } from './serial-async-generator';
export type { Answer, AnswerCallback, FailureCallback } from './serial-async-generator';
export { track, TrackedChain } from './tracked-chain';
export type { ChainLink, ChainOwner, HeldChains } from './tracked-chain';
