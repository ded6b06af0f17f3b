/**
 * The errors and the warning of registration (MW-032, MW-043): each carries
 * its code, the stage, phase and handler it is about, and a message that
 * names them and says what to do. The wording is informative in the spec;
 * these tests pin it so that no message loses the part that tells the user
 * where and what to fix.
 */
import { describe, expect, it } from 'vitest';
import type { ErrorSite, MiddlewareError } from '../../src/core/errors';
import * as messages from '../../src/core/messages';
import { unknownId } from '../../src/core/warnings';

const wrap: ErrorSite = { stage: 'invokeModel', phase: 'wrap', handler: 'retry' };

/** The fields of an error a test compares whole. */
function fields(error: MiddlewareError): Record<string, unknown> {
  return { code: error.code, stage: error.stage, phase: error.phase, handler: error.handler, message: error.message };
}

describe('invalidStage', () => {
  it('names the stage and the problem', () => {
    expect(fields(messages.invalidStage('invokeModel', 'options.isResult must be a function, got number 1'))).toEqual({
      code: 'ERR_INVALID_STAGE',
      stage: 'invokeModel',
      phase: undefined,
      handler: undefined,
      message: '[ERR_INVALID_STAGE] createStage("invokeModel"): options.isResult must be a function, got number 1.',
    });
  });
});

describe('unknownTarget', () => {
  const lookalike =
    ' It looks like a stage or phase token but was not created by createStage (a copy, a spread or a hand-made object is not the same stage).';
  const hasThrows = new Proxy(
    {},
    {
      has() {
        throw new Error('has trap');
      },
    },
  );
  it.each([
    ['a number', 42, 'number 42', ''],
    ['null', null, 'null', ''],
    ['a copied phase token', { phase: 'wrap', stage: {} }, 'a plain object', lookalike],
    ['a spread stage', { name: 'invokeModel', Input: {} }, 'a plain object', lookalike],
    ['an object of neither shape', { name: 'invokeModel' }, 'a plain object', ''],
    ['a proxy whose has trap throws', hasThrows, 'a plain object', ''],
  ])('names the call and what it got: %s', (_label, target, described, hint) => {
    expect(fields(messages.unknownTarget('registry.add', target))).toEqual({
      code: 'ERR_UNKNOWN_PHASE',
      stage: undefined,
      phase: 'register',
      handler: undefined,
      message: `[ERR_UNKNOWN_PHASE] registry.add expects a stage from createStage() or one of its phase tokens (Stage.Input, Stage.Wrap, Stage.Output), got ${described}.${hint}`,
    });
  });
});

describe('phaseTokenNotStage', () => {
  it('names the call, the stage and the phase, and says to pass the stage', () => {
    expect(fields(messages.phaseTokenNotStage('registry.invoke', 'invokeModel', 'wrap'))).toEqual({
      code: 'ERR_UNKNOWN_PHASE',
      stage: 'invokeModel',
      phase: 'register',
      handler: undefined,
      message:
        "[ERR_UNKNOWN_PHASE] registry.invoke expects a stage from createStage(), got its wrap phase token. Pass the stage itself (the token's `stage`).",
    });
  });
});

describe('invalidRegistration', () => {
  it('names the call, the problem and the handler', () => {
    expect(fields(messages.invalidRegistration('registry.add', wrap, 'options.id must be a non-empty string'))).toEqual({
      code: 'ERR_INVALID_OPTIONS',
      ...wrap,
      message: '[ERR_INVALID_OPTIONS] registry.add: options.id must be a non-empty string (wrap handler "retry" of stage "invokeModel").',
    });
  });
});

describe('duplicateId', () => {
  const replaceAdvice = 'Pass { replace: true } to put this handler in its place, or choose another id.';
  it.each([
    ['in a registry, offering replace', false, replaceAdvice],
    ['in a registry when not told the ids are siblings, offering replace', undefined, replaceAdvice],
    [
      'twice in one use list, where replace cannot help',
      true,
      'Ids must be unique within one use list ({ replace: true } only replaces an id registered in an enclosing registry): drop one entry or choose another id.',
    ],
  ])('names the id and the handler: %s', (_label, sibling, advice) => {
    expect(fields(messages.duplicateId(wrap, 'retry-1', 'registry.add', sibling))).toEqual({
      code: 'ERR_DUPLICATE_ID',
      ...wrap,
      message: `[ERR_DUPLICATE_ID] registry.add: the id "retry-1" is already registered, so wrap handler "retry" of stage "invokeModel" cannot take it. ${advice}`,
    });
  });
});

describe('invalidContributionKey', () => {
  it('names the call and the problem', () => {
    expect(fields(messages.invalidContributionKey('its name must be a non-empty string'))).toEqual({
      code: 'ERR_INVALID_OPTIONS',
      stage: undefined,
      phase: 'register',
      handler: undefined,
      message: '[ERR_INVALID_OPTIONS] createContributionKey(name, options?): its name must be a non-empty string.',
    });
  });
});

describe('notAContributionKey', () => {
  it('names the call and what it got', () => {
    expect(fields(messages.notAContributionKey('registrar.provide', 'tools'))).toEqual({
      code: 'ERR_INVALID_OPTIONS',
      stage: undefined,
      phase: 'register',
      handler: undefined,
      message: '[ERR_INVALID_OPTIONS] registrar.provide expects a key from createContributionKey(), got the string "tools".',
    });
  });
});

describe('invalidContributionId', () => {
  it.each([
    ['a key of a stage', 'executeTool', 'executeTool'],
    ['a key of no stage', undefined, undefined],
  ])('names the call, the key, the id and the value: %s', (_label, keyStage, stage) => {
    expect(fields(messages.invalidContributionId('registrar.provide', { name: 'tools', stage: keyStage }, 7, { name: 'x' }))).toEqual({
      code: 'ERR_INVALID_OPTIONS',
      stage,
      phase: 'register',
      handler: undefined,
      message:
        '[ERR_INVALID_OPTIONS] registrar.provide: the identify function of key "tools" gave number 7 for a plain object, not a non-empty string. Provide a value the key can name.',
    });
  });
});

describe('duplicateContribution', () => {
  it.each([
    ['in a parent registry', 'executeTool', true, 'a parent registry'],
    ['in the same registry', undefined, false, 'the same registry'],
  ])('names both bundles, the id and the key: the earlier one %s', (_label, stage, inAncestor, where) => {
    expect(fields(messages.duplicateContribution({ name: 'tools', stage }, 'search', 'web', 'files', inAncestor))).toEqual({
      code: 'ERR_DUPLICATE_ID',
      stage,
      phase: 'register',
      handler: undefined,
      message: `[ERR_DUPLICATE_ID] Bundle "web" provides "search" under key "tools", and bundle "files" already provides a value with that id in ${where}. Each value of a key needs its own id within one chain of scopes: rename one, or use only one of the bundles.`,
    });
  });
});

describe('notABundle', () => {
  it('says what a bundle is and what it got', () => {
    expect(fields(messages.notABundle(null))).toEqual({
      code: 'ERR_INVALID_HANDLER',
      stage: undefined,
      phase: 'register',
      handler: undefined,
      message: '[ERR_INVALID_HANDLER] registry.use expects a bundle { name: string, setup(registrar) }, got null.',
    });
  });
});

describe('notAnInstrumentation', () => {
  it('says what an instrumentation is and what it got', () => {
    expect(fields(messages.notAnInstrumentation(42))).toEqual({
      code: 'ERR_INVALID_HANDLER',
      stage: undefined,
      phase: 'register',
      handler: undefined,
      message: '[ERR_INVALID_HANDLER] registry.instrument expects { name, invoke(info) }, got number 42.',
    });
  });
});

describe('orderCycle', () => {
  it('names the stage, the phase and the ids of the cycle in order', () => {
    expect(fields(messages.orderCycle('invokeModel', 'wrap', 'retry', ['retry', 'cache', 'retry']))).toEqual({
      code: 'ERR_ORDER_CYCLE',
      ...wrap,
      message:
        '[ERR_ORDER_CYCLE] The ordering constraints of the wrap handlers of stage "invokeModel" form a cycle: retry -> cache -> retry (each must run before the next). Remove one of these before/after constraints.',
    });
  });
});

describe('orderConflict', () => {
  it.each([
    [true, true, 'before', 'an outer'],
    [false, false, 'after', 'an inner'],
  ])('names the handler and the id of the other scope (outside %s, outer scope %s)', (outside, inOuterScope, side, scope) => {
    expect(fields(messages.orderConflict(wrap, 'cache', outside, inOuterScope))).toEqual({
      code: 'ERR_ORDER_CONFLICT',
      ...wrap,
      message: `[ERR_ORDER_CONFLICT] The wrap handler "retry" of stage "invokeModel" must run ${side} "cache", but "cache" belongs to ${scope} scope, and handlers of an outer scope (a parent registry) always run outside those of an inner one (a child registry, then per-invoke handlers). Register both in the same scope.`,
    });
  });
});

describe('unknownId', () => {
  it.each([
    [true, 'before'],
    [false, 'after'],
  ])('is a frozen warning naming the handler and the unknown id (outside %s)', (outside, side) => {
    const warning = unknownId({ stage: 'invokeModel', phase: 'wrap', handler: 'retry' }, 'cache', outside);
    expect({ warning, frozen: Object.isFrozen(warning) }).toEqual({
      warning: {
        code: 'WARN_UNKNOWN_ID',
        stage: 'invokeModel',
        phase: 'wrap',
        handler: 'retry',
        id: 'cache',
        message: `The wrap handler "retry" of stage "invokeModel" must run ${side} "cache", but no handler has that id; the constraint is ignored. Check the id, or register that handler.`,
      },
      frozen: true,
    });
  });
});
