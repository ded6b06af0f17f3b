/**
 * What a chain session builds from a case's declarations and how it reports
 * what it saw: stages with declarative schemas, initial states, error
 * reports, and an observer that writes every instrumentation hook into the trace.
 */
import { z } from 'zod';
import { createStage, MiddlewareError, type AnyStage, type InvokeObserver, type Schema } from '../../src/core/index';
import type { Json } from '../cases/case-base';
import type { StageSpec } from '../cases/chain-case';
import type { ErrorReport } from '../protocol/error-report';
import { errorText, isResultEvent, type Environment } from './script-environment';

/** An error as the protocol reports it (`ErrorReport`): the fields a case may compare, read once. */
export function reportError(error: unknown, userErrors: ReadonlySet<unknown>): ErrorReport {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const text = (key: string): string | null => (typeof fields[key] === 'string' ? fields[key] : null);
  const report: { -readonly [TKey in keyof ErrorReport]: ErrorReport[TKey] } = {
    message: readMessage(error),
    thrownByCase: userErrors.has(error),
    stage: text('stage'),
    phase: text('phase'),
    handler: text('handler'),
  };
  if (MiddlewareError.isInstance(error)) {
    report.code = error.code;
    report.genuine = error.name === 'MiddlewareError';
  }
  if (fields.cause !== undefined) report.cause = projectCause(fields.cause);
  return report;
}

/** The message of a thrown value: its `message`, else the value as a string. */
function readMessage(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return '(a value without a readable message)';
  }
}

/** A cause as a case states it: schema issues, a library error's code, another object's message, or the value itself. */
function projectCause(cause: unknown): Json {
  if (typeof cause !== 'object' || cause === null) return cause as Json;
  try {
    const issues = (cause as { issues?: { message: string }[] }).issues;
    if (Array.isArray(issues)) return { issues: issues.map((issue) => issue.message) };
    if (MiddlewareError.isInstance(cause)) return { code: cause.code };
    const { message } = cause as { message?: unknown };
    return typeof message === 'string' ? { message } : {};
  } catch {
    // A revoked proxy or a throwing getter: a cause no case can state.
    return { unreadable: true };
  }
}

/** What the protocol reports for a value JSON cannot carry (a cycle, a BigInt). */
const NOT_JSON = '(not JSON)';

/** The value when JSON can carry it, else {@link NOT_JSON}. */
export function asJson(value: unknown): Json {
  try {
    JSON.stringify(value);
    return value as Json;
  } catch {
    return NOT_JSON;
  }
}

/** Reads a declarative object schema into a `Schema` (zod). */
export function objectSchema(spec: { required?: string[] | undefined; defaults?: Record<string, unknown> | undefined }): Schema<unknown> {
  const shape: Record<string, z.ZodType> = {};
  for (const key of spec.required ?? []) shape[key] = z.unknown().refine((value) => value !== undefined, { message: `${key} is required` });
  for (const [key, value] of Object.entries(spec.defaults ?? {})) shape[key] = z.unknown().default(value);
  return z.looseObject(shape);
}

/** Creates the case's stage from its declaration. */
export function makeStage(spec: StageSpec): AnyStage {
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
export function initialState(spec: {
  initial: unknown;
  link?: { from: string; to: string }[] | undefined;
  frozen?: string[] | undefined;
}): unknown {
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
      environment.trace.push(
        `${name}:invoke ${outcome.status}${outcome.status === 'success' ? ` ${JSON.stringify(outcome.result)}` : outcome.status === 'error' ? ` ${errorText(outcome.error)}` : ''}`,
      );
    },
  };
}
