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
