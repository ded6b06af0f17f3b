/**
 * staged-middleware: typed, staged middleware for agent loops, for the
 * authors of agent frameworks: stages, the registry that runs handlers
 * around a framework's own step, results, errors, system prompts, and the
 * types to write handlers, terminals, bundles and instrumentations with.
 *
 * An entry point exports what its users call or construct, the options of
 * those calls, and the types of what they implement or handle; not types
 * that only name a part of another export (reach those as `Type['field']`).
 * Every public name of the main entry point is listed here.
 *
 * Reading the core, in this order:
 * 1. `src/core/stage.ts` and `src/core/types.ts`: a stage and its phase
 *    tokens, and the types of handlers, terminals and options.
 * 2. `src/core/registry.ts`: `MiddlewareRegistry`, whose methods hand each
 *    change to a scope (`src/core/scope.ts`, checked by
 *    `src/core/registration.ts` and `src/core/bundle.ts`) and each run to an
 *    invocation; `src/core/order.ts` and `src/core/resolve.ts` turn what is
 *    registered into a chain (`src/core/chain.ts`), cached per stage.
 * 3. `src/core/invocation.ts`: one invoke, the iterator `invoke()` returns.
 * 4. `src/core/compose.ts`: where the onion is composed, Wrap handlers around
 *    the terminal, with `src/core/phases.ts` running Input and Output.
 * 5. `src/core/result-rule.ts`: where the last event is the result (MW-003,
 *    MW-006), and `src/core/result.ts`, the Output phase's `MiddlewareResult`.
 * 6. `src/core/state.ts`: where state is isolated (snapshot, draft, writeback).
 * 7. `src/core/errors.ts` and `src/core/messages.ts`: where contract errors
 *    come from (the one error class, the error table, the message builders),
 *    and `src/core/warnings.ts` for the warnings of resolution.
 * 8. Then what an invoke needs at its edges: `src/core/closing.ts`,
 *    `src/core/signals.ts`, `src/core/instrumentation.ts`.
 * 9. Last, and only to change speed: `src/core/fast-path/`, the code that
 *    exists only to beat the language's own generators, behind one door
 *    with its contract (`src/core/fast-path/index.ts`).
 *
 * How the agent decides to stop is not the core's: see
 * `src/agent/loop/turn-decision.ts`.
 *
 * @packageDocumentation
 */
export { createStage, isStage, isPhaseToken } from './stage';
export { MiddlewareRegistry } from './registry';
export type { RegistryOptions } from './registry';
export { registration } from './registration';
export type { Middleware, Registrar } from './bundle';
export type { ChainEntry } from './chain';
export type { DuplicateHandlerWarning, MiddlewareWarning, UnknownIdWarning } from './warnings';
export { MiddlewareResult } from './result';
export type { ResultRecipe } from './result';
export type { DeepReadonly } from './deep-readonly';
export { MiddlewareError } from './errors';
export type { MiddlewareErrorCode } from './errors';
export { toSystemBlocks, splitSystemPrompt, isSystemTextBlock } from './system-prompt';
export type { SystemContentBlock, SystemPrompt } from './system-prompt';
export type { HandlerInfo, Instrumentation, InvokeInfo, InvokeObserver, InvokeOutcome, LayerInfo } from './instrumentation';
export { createContributionKey } from './contributions';
export type { Contribution, ContributionKey, ContributionKeyOptions } from './contributions';
export type {
  AddOptions,
  AnyStage,
  ContextOf,
  Disposer,
  EventOf,
  HandlerCall,
  HandlerOf,
  InputHandler,
  InvokeOptions,
  MiddlewareStage,
  Next,
  OutputHandler,
  Phase,
  PhaseToken,
  Registration,
  ResultOf,
  Schema,
  StageOptions,
  StateBinding,
  Target,
  Terminal,
  TerminalArgument,
  TerminalCall,
  TerminalOf,
  WrapHandler,
} from './types';
