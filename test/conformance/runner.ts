/**
 * Runs one `"kind": "chain"` conformance case against this library and
 * reports what it observed, in the shape of the case's `expect` block.
 *
 * Order of a run: create the stages, apply the registry operations (an
 * operation with `expectError` must throw that error, anything else must not
 * throw), take `describe`/`explain`, invoke, apply `consumer.afterInvoke`,
 * consume, then call any kept `next` functions (recording `late:<code>`).
 */
import { MiddlewareRegistry, createContributionKey, createStage, type AnyStage, type ContributionKey, type Disposer, type MiddlewareWarning, type Registration } from '../../src/index';
import { builtin } from './builtins';
import { errorText, inputHandler, isResultEvent, outputHandler, terminal, wrapHandler, type Environment } from './handlers';
import { deeplyFrozen, initialState, makeStage, observer, projectError } from './observe';
import type { AddOperation, ChainCase, ErrorExpectation, Operation } from './schema';

/** What a run observed, keyed like `expect`. */
export type Observed = Record<string, unknown>;

/** An error seen by the runner, with where it arose. */
interface Failure {
  readonly at: 'setup' | 'invoke';
  readonly error: unknown;
}

/** Runs a case and returns what it observed, plus the raw error for identity checks. */
export async function runChainCase(testCase: ChainCase): Promise<{ observed: Observed; error: unknown; environment: Environment }> {
  const environment: Environment = {
    trace: [],
    userErrors: new Set(),
    controller: testCase.signal === undefined || testCase.signal.invalid === true ? undefined : new AbortController(),
    locals: new Map(),
    keptNexts: [],
    bindingSet: undefined,
  };
  const observed: Observed = {};
  const warnings: MiddlewareWarning[] = [];
  const stateWrites: unknown[] = [];
  let stateGets = 0;
  let snapshot: unknown;
  let failure: Failure | undefined;
  const events: unknown[] = [];
  let result: unknown;
  let hasResult = false;

  try {
    const stage = makeStage(testCase.stage);
    if (testCase.expect.stageFrozen !== undefined) {
      const phases = [stage.Input, stage.Wrap, stage.Output];
      observed.stageFrozen = Object.isFrozen(stage) && phases.every((token) => Object.isFrozen(token) && token.stage === stage) && phases.map((token) => token.phase).join() === 'input,wrap,output';
    }
    const stages = new Map<string | undefined, AnyStage>([[undefined, stage]]);
    for (const name of testCase.otherStages ?? []) stages.set(name, createStage(name, testCase.stage.guard === true ? { isResult: isResultEvent } : {}));
    const parent = new MiddlewareRegistry({ onWarning: (warning) => warnings.push(warning) });
    const child = parent.child();
    const usesChild = [...testCase.registry, ...(testCase.consumer.afterInvoke ?? [])].some((operation) => 'scope' in operation && operation.scope === 'child');
    const invoked = (testCase.invokeOn ?? (usesChild ? 'child' : 'parent')) === 'child' ? child : parent;
    const use: Registration[] = [];
    const labels = new Map<string, { dispose: Disposer; target?: unknown; handler?: unknown; scope?: string | undefined }>();
    const registryOf = (scope: string | undefined): MiddlewareRegistry => (scope === 'child' ? child : parent);
    const keys = new Map<string, ContributionKey<unknown>>();

    const makeHandler = (operation: AddOperation): unknown => {
      if (operation.notAFunction !== undefined) return operation.notAFunction;
      if (operation.reuse !== undefined) return labels.get(operation.reuse)?.handler;
      if (operation.phase === 'input') return inputHandler(operation.steps, environment, operation.fnName, operation.async === true);
      if (operation.phase === 'output') return outputHandler(operation.steps, environment, operation.fnName, operation.async === true);
      return wrapHandler(operation.steps, environment, operation.fnName, operation.finally, operation.returns);
    };
    const targetOf = (operation: AddOperation): unknown => {
      const owner = stages.get(operation.stage) as AnyStage;
      if (operation.target === 'bare') return owner;
      const token = operation.phase === 'input' ? owner.Input : operation.phase === 'output' ? owner.Output : owner.Wrap;
      return operation.target === 'forged' ? { ...token } : token;
    };
    const optionsOf = (operation: AddOperation): Record<string, unknown> | undefined => {
      if (operation.rawOptions !== undefined) return operation.rawOptions;
      const options: Record<string, unknown> = {};
      for (const key of ['name', 'order', 'id', 'before', 'after', 'replace', 'next'] as const) if (operation[key] !== undefined) options[key] = operation[key];
      return Object.keys(options).length === 0 ? undefined : options;
    };
    const expectThrow = (action: () => void, expected: ErrorExpectation | undefined): void => {
      if (expected === undefined) return action();
      try {
        action();
      } catch (error) {
        const projected = projectError(error, expected, 'setup');
        delete projected.at;
        environment.trace.push(`setup error ${JSON.stringify(projected)}`);
        return;
      }
      environment.trace.push('setup error none');
    };
    const apply = (operation: Operation): void => {
      switch (operation.op) {
        case 'add': {
          const target = targetOf(operation);
          const handler = makeHandler(operation);
          const options = optionsOf(operation);
          if (operation.scope === 'invoke') {
            use.push((options === undefined ? [target, handler] : [target, handler, options]) as unknown as Registration);
            return;
          }
          expectThrow(() => {
            const dispose = registryOf(operation.scope).add(target as AnyStage, handler as never, options as never);
            if (operation.label !== undefined) labels.set(operation.label, { dispose, target, handler, scope: operation.scope });
          }, operation.expectError);
          return;
        }
        case 'bundle': {
          let registered = 0;
          expectThrow(() => {
            const dispose = registryOf(operation.scope).use({
              name: operation.name,
              setup: (registrar) => {
                for (const member of operation.handlers) {
                  if (operation.throwAfter === registered) break;
                  registrar.add(targetOf(member) as AnyStage, makeHandler(member) as never, optionsOf(member) as never);
                  registered++;
                }
                for (const provided of operation.provides ?? []) {
                  if (operation.throwAfter === registered) break;
                  const key = 'rawKey' in provided ? provided.rawKey : keys.get(provided.key);
                  if (key === undefined) throw new Error(`provide names the unknown key "${provided.key}"`);
                  const disposeOne = registrar.provide(key as ContributionKey<unknown>, structuredClone(provided.value));
                  if (provided.label !== undefined) labels.set(provided.label, { dispose: disposeOne });
                  registered++;
                }
                if (operation.throwAfter !== undefined) {
                  const failed = new Error('setup failed');
                  environment.userErrors.add(failed);
                  throw failed;
                }
              },
            });
            if (operation.label !== undefined) labels.set(operation.label, { dispose });
          }, operation.expectError);
          return;
        }
        case 'use': {
          const dispose = registryOf(operation.scope).use(builtin(operation.builtin)(operation.options, { stage, environment }));
          if (operation.label !== undefined) labels.set(operation.label, { dispose });
          return;
        }
        case 'dispose': {
          const entry = labels.get(operation.label);
          if (entry === undefined) throw new Error(`dispose names the unknown label "${operation.label}"`);
          for (let index = 0; index < (operation.times ?? 1); index++) entry.dispose();
          return;
        }
        case 'remove': {
          let removed: boolean;
          if (operation.id !== undefined) removed = registryOf(operation.scope).remove(operation.id);
          else {
            const entry = labels.get(operation.label as string);
            if (entry === undefined) throw new Error(`remove names the unknown label "${String(operation.label)}"`);
            removed = registryOf(operation.scope ?? entry.scope).remove(entry.target as AnyStage, entry.handler as never);
          }
          if (removed !== operation.expect) throw new Error(`remove returned ${String(removed)}, the case expects ${String(operation.expect)}`);
          return;
        }
        case 'instrument': {
          const layerReturns = 'layerReturns' in operation ? { value: operation.layerReturns } : undefined;
          const invokeReturns = 'invokeReturns' in operation ? { value: operation.invokeReturns } : undefined;
          registryOf(operation.scope).instrument({
            name: operation.name,
            invoke: () => (invokeReturns === undefined ? observer(operation.name, environment, layerReturns) : (invokeReturns.value as never)),
          });
        }
      }
    };

    for (const spec of testCase.keys ?? []) {
      const identify = spec.identify === true ? (value: unknown) => (value as { id?: unknown }).id as string : spec.identify;
      const keyStage = spec.stage === true ? stage : spec.stage;
      const options = { ...(spec.identify === undefined ? {} : { identify }), ...(spec.stage === undefined ? {} : { stage: keyStage }) };
      expectThrow(() => {
        const key = createContributionKey(spec.name as string, (Object.keys(options).length === 0 ? undefined : options) as never);
        keys.set(key.name, key);
      }, spec.expectError);
    }
    for (const operation of testCase.registry) apply(operation);
    if (testCase.expect.contributions !== undefined) {
      const seen: Record<string, unknown> = {};
      for (const [name, expectedEntries] of Object.entries(testCase.expect.contributions)) {
        try {
          // A fresh key with the same name: keys are matched by name (MW-053).
          const entries = invoked.contributions(createContributionKey(name));
          const listed = Array.isArray(expectedEntries) ? expectedEntries : [];
          seen[name] = entries.map((entry, index) => {
            const fields = Object.keys(listed[index] ?? entry);
            return Object.fromEntries(fields.map((field) => [field, (entry as unknown as Record<string, unknown>)[field] ?? null]));
          });
        } catch (error) {
          const expectedError = Array.isArray(expectedEntries) ? {} : expectedEntries.error;
          const projected = projectError(error, expectedError, 'setup');
          delete projected.at;
          seen[name] = { error: projected };
        }
      }
      observed.contributions = seen;
    }
    if (testCase.expect.describe !== undefined || testCase.expect.explain !== undefined) {
      const entries = invoked.describe(stage, { use });
      if (testCase.expect.describe !== undefined) {
        observed.describe = entries.map((entry, index) => {
          const keys = Object.keys(testCase.expect.describe?.[index] ?? {});
          // JSON has no undefined: an absent id or bundle is compared as null.
          return Object.fromEntries(keys.map((key) => [key, (entry as unknown as Record<string, unknown>)[key] ?? null]));
        });
      }
      if (testCase.expect.explain !== undefined) observed.explain = invoked.explain(stage, { use });
    }

    const options: Record<string, unknown> = {};
    // A phase token or a spread copy in place of the stage (MW-035).
    const invokedStage: unknown = testCase.invokeWith === 'input-token' ? stage.Input : testCase.invokeWith === 'forged' ? { ...stage } : stage;
    if (testCase.signal?.invalid === true) options.signal = 'not a signal';
    if (environment.controller !== undefined) {
      if (testCase.signal?.abortBefore !== undefined) environment.controller.abort(abortReason(testCase.signal.abortBefore, testCase.signal.reasonKind));
      options.signal = environment.controller.signal;
    }
    if (testCase.state !== undefined) {
      snapshot = 'initial' in testCase.state ? initialState(testCase.state) : { number: 7, string: 'text', null: null }[testCase.state.invalid];
      let current = snapshot;
      const binding = {
        get: () => {
          stateGets++;
          return current;
        },
        set: (value: unknown) => {
          stateWrites.push(value);
          current = value;
        },
      };
      environment.bindingSet = binding.set;
      options.state = binding;
    }
    if (use.length > 0) options.use = use;
    const terminalFunction = testCase.terminal.notAFunction !== undefined ? testCase.terminal.notAFunction : terminal(testCase.terminal.calls, environment, testCase.terminal.finally, testCase.terminal.returns);

    try {
      const consumer = testCase.consumer;
      if (consumer.mode === 'run') {
        result = await invoked.run(invokedStage as AnyStage, testCase.context, terminalFunction as never, options);
        hasResult = true;
      } else {
        const iterator = invoked.invoke(invokedStage as AnyStage, testCase.context, terminalFunction as never, options);
        for (const operation of consumer.afterInvoke ?? []) apply(operation);
        if (consumer.mode === 'return-first') await iterator.return(undefined);
        else if (consumer.mode === 'throw-first') {
          const stop = new Error('consumer stop');
          environment.userErrors.add(stop);
          await iterator.throw(stop);
        }
        else {
          const limit = consumer.mode === 'take' ? (consumer.take ?? 0) : Infinity;
          while (events.length < limit) {
            const pulled = await iterator.next();
            if (pulled.done === true) {
              if (events.length > 0) {
                result = events[events.length - 1];
                hasResult = true;
              }
              break;
            }
            events.push(pulled.value);
            if (consumer.abortAfter === events.length) environment.controller?.abort('consumer');
          }
          if (consumer.mode === 'take') {
            if (consumer.then === 'throw') {
              const stop = new Error('consumer stop');
              environment.userErrors.add(stop);
              await iterator.throw(stop);
            } else if (consumer.then === 'break') {
              // for-await's break calls return().
              await iterator.return(undefined);
            } else if (consumer.then === 'dispose') {
              const disposed: unknown = await (iterator as unknown as AsyncDisposable)[Symbol.asyncDispose]();
              if (disposed !== undefined) throw new Error(`[Symbol.asyncDispose]() resolved ${JSON.stringify(disposed)}, not undefined`);
            } else await iterator.return(undefined);
          }
        }
      }
    } catch (error) {
      failure = { at: 'invoke', error };
    }
  } catch (error) {
    failure ??= { at: 'setup', error };
  }

  for (const late of environment.keptNexts) {
    try {
      late();
      environment.trace.push('late:no error');
    } catch (error) {
      environment.trace.push(`late:${errorText(error)}`);
    }
  }

  const expected = testCase.expect;
  if (expected.events !== undefined) observed.events = events;
  if (expected.result !== undefined) observed.result = hasResult ? result : '<no result>';
  if (expected.trace !== undefined) observed.trace = environment.trace;
  if (expected.stateWrites !== undefined) observed.stateWrites = stateWrites;
  if (expected.stateGets !== undefined) observed.stateGets = stateGets;
  if (expected.snapshotFrozen !== undefined) observed.snapshotFrozen = deeplyFrozen(snapshot);
  if (expected.frozenEvents !== undefined) observed.frozenEvents = events.map((event) => deeplyFrozen(event));
  if (expected.warnings !== undefined) observed.warnings = warnings.map(({ code, id, handler }) => ({ code, id, handler }));
  if (failure !== undefined) observed.error = expected.error === undefined ? { unexpected: failure.at, text: errorText(failure.error), stack: (failure.error as Error)?.stack } : projectError(failure.error, expected.error, failure.at);
  return { observed, error: failure?.error, environment };
}

/** The abort reason of `signal.abortBefore`: the string, or a reason that is hard to describe. */
function abortReason(text: string, kind: 'throwing-message' | 'revoked-proxy' | 'null-prototype' | undefined): unknown {
  if (kind === 'throwing-message') {
    const reason = new Error(text);
    Object.defineProperty(reason, 'message', {
      get() {
        throw new Error('the message getter throws');
      },
    });
    return reason;
  }
  if (kind === 'revoked-proxy') {
    const { proxy, revoke } = Proxy.revocable(new Error(text), {});
    revoke();
    return proxy;
  }
  if (kind === 'null-prototype') return Object.assign(Object.create(null) as object, { message: text });
  return text;
}
