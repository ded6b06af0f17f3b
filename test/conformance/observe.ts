/**
 * What the runner builds from a case's declarations and how it reports what
 * it saw: stages with declarative schemas, error projections, and an
 * observer that writes every instrumentation hook into the trace.
 */
import { z } from 'zod';
import { createStage, MiddlewareError, type AnyStage, type InvokeObserver, type Schema } from '../../src/index';
import { errorText, isResultEvent, type Environment } from './handlers';
import type { ChainCase, ErrorExpectation } from './schema';

/** Describes an error in the shape of an `ErrorExpectation`: code (or message), and the other keys the case lists. */
export function projectError(error: unknown, expected: ErrorExpectation, at: string): Record<string, unknown> {
  const projected: Record<string, unknown> = { at };
  const fields = error as Record<string, unknown> | null;
  if (MiddlewareError.isInstance(error)) projected.code = error.code;
  else projected.message = error instanceof Error ? error.message : String(error);
  for (const key of ['stage', 'phase', 'handler'] as const) if (key in expected) projected[key] = fields?.[key] ?? null;
  if ('cause' in expected) {
    const cause = fields?.cause;
    const issues = (cause as { issues?: { message: string }[] } | null)?.issues;
    if (Array.isArray(issues)) projected.cause = { issues: issues.map((issue) => issue.message) };
    else if (typeof cause === 'object' && cause !== null) projected.cause = MiddlewareError.isInstance(cause) ? { code: cause.code } : { message: (cause as Error).message };
    else projected.cause = cause;
  }
  return projected;
}

/** Reads a declarative object schema into a `Schema` (zod). */
function objectSchema(spec: { required?: string[] | undefined; defaults?: Record<string, unknown> | undefined }): Schema<unknown> {
  const shape: Record<string, z.ZodType> = {};
  for (const key of spec.required ?? []) shape[key] = z.unknown().refine((value) => value !== undefined, { message: `${key} is required` });
  for (const [key, value] of Object.entries(spec.defaults ?? {})) shape[key] = z.unknown().default(value);
  return z.looseObject(shape) as Schema<unknown>;
}

/** Creates the case's stage from its declaration. */
export function makeStage(spec: ChainCase['stage']): AnyStage {
  const options: Record<string, unknown> = {};
  if (spec.guard === true) options.isResult = isResultEvent;
  if (spec.context !== undefined) options.context = objectSchema(spec.context);
  if (spec.result !== undefined) options.result = objectSchema(spec.result);
  if (spec.badOption === 'options') return createStage(spec.name, null as never);
  if (spec.badOption !== undefined) options[spec.badOption] = 42;
  return createStage(spec.name, options);
}

/** Whether a value and everything in it is frozen (each object looked at once, so cycles end). */
export function deeplyFrozen(value: unknown, seen = new Set<unknown>()): boolean {
  if (typeof value !== 'object' || value === null || seen.has(value)) return true;
  seen.add(value);
  return Object.isFrozen(value) && Object.values(value).every((child) => deeplyFrozen(child, seen));
}

/** The value at a dotted path of `root` ("" is the root itself). */
export function at(root: unknown, path: string): unknown {
  return path === '' ? root : path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], root);
}

/** A copy of a case's initial state with its links made and its frozen parts frozen. */
export function initialState(spec: { initial: unknown; link?: { from: string; to: string }[] | undefined; frozen?: string[] | undefined }): unknown {
  const state = structuredClone(spec.initial);
  for (const { from, to } of spec.link ?? []) {
    const keys = from.split('.');
    const last = keys.pop() as string;
    (at(state, keys.join('.')) as Record<string, unknown>)[last] = at(state, to);
  }
  for (const path of spec.frozen ?? []) Object.freeze(at(state, path));
  return state;
}

/** An observer that writes every hook into the trace. */
export function observer(name: string, environment: Environment, layerReturns?: { readonly value: unknown }): InvokeObserver {
  return {
    layer(info, events) {
      environment.trace.push(`${name}:layer ${info.handler}#${info.attempt}@${info.position}`);
      if (layerReturns !== undefined) return layerReturns.value as never;
      return (async function* observed() {
        try {
          yield* events;
        } finally {
          environment.trace.push(`${name}:layer-end ${info.handler}#${info.attempt}`);
        }
      })();
    },
    handlerStart(info) {
      environment.trace.push(`${name}:start ${info.phase} ${info.handler}@${info.position}`);
    },
    handlerEnd(info, error) {
      environment.trace.push(`${name}:end ${info.phase} ${info.handler}${error === undefined ? '' : ` error ${errorText(error)}`}`);
    },
    end(outcome) {
      environment.trace.push(`${name}:invoke ${outcome.status}${outcome.status === 'success' ? ` ${JSON.stringify(outcome.result)}` : outcome.status === 'error' ? ` ${errorText(outcome.error)}` : ''}`);
    },
  };
}
