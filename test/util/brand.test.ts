/**
 * The realm's record of branded objects (util/brand.ts): published on
 * globalThis under a shared key so every copy of the package finds it, and
 * published so that no code can swap in a record of its own to forge brands.
 */
import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareResult } from '../../src/core/index';
import { brandOf } from '../../src/util/brand';

describe("the realm's brand record", () => {
  it('is a frozen record under the shared key that is neither writable, enumerable nor configurable', () => {
    createStage('invokeModel');
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, Symbol.for('staged-middleware.brands.v1'));
    const record = descriptor?.value as { objects?: unknown; classes?: unknown } | undefined;
    expect({
      writable: descriptor?.writable,
      enumerable: descriptor?.enumerable,
      configurable: descriptor?.configurable,
      frozen: Object.isFrozen(record),
      objects: record?.objects instanceof WeakMap,
      classes: record?.classes instanceof Map,
    }).toEqual({ writable: false, enumerable: false, configurable: false, frozen: true, objects: true, classes: true });
  });
});

describe('brandOf', () => {
  it('names what a stage and each of its phase tokens are, in one lookup', () => {
    const stage = createStage('invokeModel');
    expect([brandOf(stage), brandOf(stage.Input), brandOf(stage.Wrap), brandOf(stage.Output)]).toEqual([
      'stage',
      'phase-token',
      'phase-token',
      'phase-token',
    ]);
  });

  it('answers undefined for look-alikes, non-objects and objects of branded classes', () => {
    const stage = createStage('invokeModel');
    const copies = [{ ...stage }, { ...stage.Wrap }, Object.create(stage) as object];
    const others = [undefined, null, 'stage', 42, () => stage, new MiddlewareResult({ text: 'done' })];
    expect([...copies, ...others].map((value) => brandOf(value))).toEqual(
      Array.from({ length: copies.length + others.length }, () => undefined),
    );
  });
});
