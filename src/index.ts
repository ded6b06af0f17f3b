/**
 * staged-middleware: typed, staged middleware for agent loops.
 *
 * Every public name of the main entry point is listed here.
 *
 * @packageDocumentation
 */
export { createStage, isStage, isPhaseToken } from './stage/create-stage';
export { MiddlewareRegistry } from './registry/registry';
export { on } from './registry/on';
export type { Middleware, Registrar } from './registry/bundle';
export type { RegistryOptions } from './registry/registry';
export { MiddlewareResult } from './stage/result';
export type { ResultRecipe } from './stage/result';
export { MiddlewareError } from './errors/middleware-error';
export type { MiddlewareErrorOptions } from './errors/middleware-error';
export type { MiddlewareErrorCode } from './errors/codes';
export { toSystemBlocks, splitSystemPrompt, isSystemTextBlock } from './system-prompt';
export type {
  SystemCachePointBlock,
  SystemContentBlock,
  SystemPrompt,
  SystemTextBlock,
  SplitSystemPrompt,
} from './system-prompt';
export type { ChainEntry, ChainSource } from './registry/chain';
export type { MiddlewareWarning } from './registry/resolve';
export type {
  HandlerInfo,
  Instrumentation,
  InvokeInfo,
  InvokeObserver,
  InvokeOutcome,
  LayerInfo,
} from './invoke/instrumentation';
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
} from './stage/types';
