/**
 * staged-middleware: typed, staged middleware for agent loops.
 *
 * Every public name of the main entry point is listed here.
 *
 * @packageDocumentation
 */
export { createStage, isStage, isPhaseToken } from './stage';
export { MiddlewareRegistry } from './registry';
export { on } from './on';
export type { Middleware, Registrar } from './bundle';
export type { RegistryOptions } from './registry';
export { MiddlewareResult } from './result';
export type { ResultRecipe } from './result';
export { MiddlewareError } from './errors';
export type { MiddlewareErrorCode, MiddlewareErrorOptions } from './errors';
export { toSystemBlocks, splitSystemPrompt, isSystemTextBlock } from './system-prompt';
export type {
  SystemCachePointBlock,
  SystemContentBlock,
  SystemPrompt,
  SystemTextBlock,
  SplitSystemPrompt,
} from './system-prompt';
export type { ChainEntry, ChainSource } from './chain';
export { createContributionKey } from './contribution';
export type { Contribution, ContributionKey, ContributionKeyOptions } from './contribution';
export type { MiddlewareWarning } from './resolve';
export type {
  HandlerInfo,
  Instrumentation,
  InvokeInfo,
  InvokeObserver,
  InvokeOutcome,
  LayerInfo,
} from './instrumentation';
export type {
  AddOptions,
  AnyStage,
  ContextOf,
  Disposer,
  ErrorPhase,
  EventOf,
  HandlerOf,
  InputHandler,
  InvokeOptions,
  MiddlewareStage,
  Next,
  NextOptions,
  NextPolicy,
  OutputHandler,
  Phase,
  PhaseToken,
  Registration,
  ResultOf,
  Schema,
  SchemaResult,
  StageOptions,
  StateBinding,
  Target,
  Terminal,
  TerminalOf,
  TerminalRun,
  WrapHandler,
  WrapRun,
} from './types';
