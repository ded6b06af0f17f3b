import { produce, type Draft } from 'immer';
import { brandClass, isBranded } from '../util/brand';
import { deepFreeze } from '../util/deep-freeze';
import type { DeepReadonly } from './deep-readonly';

/** An immer recipe over a result value: mutate the draft (writable), or return a replacement. */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- immer's recipe form: a recipe that only mutates returns void
export type ResultRecipe<TResult> = (draft: Draft<TResult>) => TResult | DeepReadonly<TResult> | void | undefined;

/**
 * The wrapper Output handlers receive and return. Immutable: `replace` and
 * `update` return a new wrapper and leave the original untouched, so an
 * Output handler can never corrupt the value another handler holds.
 *
 * A result owns its value: the constructor deep-freezes it in place (plain
 * objects, arrays, Maps and Sets; parts already frozen are taken as they
 * are). Do not mutate a value after wrapping it; `update` gives the changed
 * copy to continue with. The type says so too: `value` is
 * {@link DeepReadonly}, so writing to it (`result.value.text = 'x'`, a push
 * to one of its arrays) fails to compile, as it would throw a `TypeError` at
 * run time. The draft of `update` is writable, and `replace` takes a plain or
 * a read-only value (`result.replace({ ...result.value, text: 'x' })`).
 *
 * @example
 * ```ts
 * registry.add(Stage.Output, (result) => result.update((draft) => { draft.text = redact(draft.text) }));
 * ```
 */
export class MiddlewareResult<TResult> {
  /** The result value, deep-frozen, so read-only all the way down. */
  readonly value: DeepReadonly<TResult>;
  /** What `isInstance` checks: only this class's constructor gives an object this field, so no lookalike has it. */
  readonly #genuine = true;

  static {
    // Every copy of the package adds its own check, so each recognises the others' results (util/brand.ts).
    brandClass('result', (value) => #genuine in value);
  }

  /** Wraps a value, taking it over: it is deep-frozen in place. */
  constructor(value: TResult | DeepReadonly<TResult>) {
    deepFreeze(value);
    this.value = value as DeepReadonly<TResult>;
    Object.freeze(this);
  }

  /** Returns a new wrapper holding `value` (taken over like the constructor's). */
  replace(value: TResult | DeepReadonly<TResult>): MiddlewareResult<TResult> {
    return new MiddlewareResult(value);
  }

  /**
   * Applies an immer recipe to a draft of the value and returns a new wrapper
   * with the produced value (structurally shared, frozen). The value is frozen
   * already, so only what the recipe added or changed is frozen now.
   */
  update(recipe: ResultRecipe<TResult>): MiddlewareResult<TResult> {
    // produce's overloads cannot see that ResultRecipe fits the curried-free form.
    const next = produce<DeepReadonly<TResult>>(this.value, recipe as never);
    return new MiddlewareResult<TResult>(next);
  }

  /** True for a `MiddlewareResult` created by any copy of this package in the realm (`instanceof` fails across copies); never for a lookalike object. */
  static isInstance(value: unknown): value is MiddlewareResult<unknown> {
    // This copy's own results first: one field check, where the realm's record walks every copy's checks.
    if (typeof value === 'object' && value !== null && #genuine in value) return true;
    return isBranded(value, 'result');
  }
}
