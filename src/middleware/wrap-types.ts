/**
 * What the Wrap-handler factories of the built-in middleware return: a Wrap
 * handler, typed to fit every stage it can serve. The three types differ only
 * in how much of the stage the factory's options fix: nothing (`retry`,
 * `timeout`, `rateLimit`), the context type (`fallback`, `cache`: their
 * options are functions of the context), or the context and event types
 * (`regenerate`: its `check` reads the result event). Pure types.
 *
 * @packageDocumentation
 */
import type { Next, HandlerCall } from '../core/index';

/**
 * A Wrap handler that fits any stage whose event type admits `TBoundary`
 * (every stage when `TBoundary` is `never`). Generic, so users never spell
 * the stage's types: `registry.add(Stage.Wrap, retry())` checks them.
 */
export type AnyStageWrap<TBoundary> = <TContext, TEvent>(
  context: TContext,
  next: Next<TContext, TEvent>,
  run: HandlerCall,
) => AsyncGenerator<TEvent | TBoundary, void, undefined>;

/** A Wrap handler for stages with context type `TContext` whose event type admits `TBoundary`. */
export type ContextWrap<TContext, TBoundary> = <TEvent>(
  context: TContext,
  next: Next<TContext, TEvent>,
  run: HandlerCall,
) => AsyncGenerator<TEvent | TBoundary, void, undefined>;

/**
 * A Wrap handler for one stage's context and event types that also yields
 * `TBoundary`. `NoInfer` keeps the event type inferred from the stage's `next`
 * alone, so registering checks that the stage's events admit `TBoundary`.
 */
export type StageWrap<TContext, TEvent, TBoundary> = (
  context: TContext,
  next: Next<TContext, TEvent>,
  run: HandlerCall,
) => AsyncGenerator<NoInfer<TEvent> | TBoundary, void, undefined>;
