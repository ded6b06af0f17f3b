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
 * @packageDocumentation
 */
export { createStage, isStage, isPhaseToken } from './stage/create-stage';
export { MiddlewareRegistry } from './registry/registry';
export type { RegistryOptions } from './registry/registry';
export { on } from './registry/on';
export type { Middleware, Registrar } from './registry/bundle';
export type { ChainEntry } from './registry/chain';
export type { DuplicateHandlerWarning, MiddlewareWarning, UnknownIdWarning } from './registry/resolve';
export { MiddlewareResult } from './stage/result';
export type { ResultRecipe } from './stage/result';
export type { DeepReadonly } from './stage/deep-readonly';
export { MiddlewareError } from './errors/middleware-error';
export type { MiddlewareErrorCode } from './errors/codes';
export { toSystemBlocks, splitSystemPrompt, isSystemTextBlock } from './system-prompt';
export type { SystemContentBlock, SystemPrompt } from './system-prompt';
export type { HandlerInfo, Instrumentation, InvokeInfo, InvokeObserver, InvokeOutcome, LayerInfo } from './invoke/instrumentation';
export { createContributionKey } from './registry/contribution';
export type { Contribution, ContributionKey, ContributionKeyOptions } from './registry/contribution';
export type {
  AnyStage,
  ContextOf,
  EventOf,
  MiddlewareStage,
  Phase,
  PhaseToken,
  ResultOf,
  Schema,
  StageOptions,
  Target,
} from './stage/types';
export type {
  AddOptions,
  Disposer,
  HandlerOf,
  HandlerRun,
  InputHandler,
  Next,
  OutputHandler,
  Registration,
  WrapHandler,
  WrapRun,
} from './stage/handler-types';
export type { InvokeOptions, StateBinding, Terminal, TerminalArgument, TerminalOf, TerminalRun } from './stage/invoke-types';
