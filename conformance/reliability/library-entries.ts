/**
 * What the `second-copy` and `bare-realm` scenarios use of a loaded copy of
 * the library, entry point by entry point. A host hands in the module
 * objects it loaded; each has these members and more.
 *
 * Why named members instead of `typeof import('../../src/core/index')`: the
 * declaration bundler turns a whole-module type into a namespace object that
 * declares the module's type-only exports as values, which a consumer
 * compiling the declarations with `skipLibCheck: false` cannot compile.
 */
import type { createStage, isPhaseToken, isStage, MiddlewareError, MiddlewareRegistry, MiddlewareResult } from '../../src/core/index';
import type { Agent, AgentStreamStage, ExecuteToolStage, InterruptSignal, InvokeModelStage } from '../../src/agent/index';
import type { retry } from '../../src/middleware/index';
import type { ScriptedModel, ScriptedTool, scriptedTerminal, textTurn, throws, toolUseTurn } from '../../src/testing/index';

/** The members of `staged-middleware` the scenarios use. */
export interface CoreEntry {
  /** `createStage`. */
  readonly createStage: typeof createStage;
  /** `isStage`. */
  readonly isStage: typeof isStage;
  /** `isPhaseToken`. */
  readonly isPhaseToken: typeof isPhaseToken;
  /** `MiddlewareError`. */
  readonly MiddlewareError: typeof MiddlewareError;
  /** `MiddlewareRegistry`. */
  readonly MiddlewareRegistry: typeof MiddlewareRegistry;
  /** `MiddlewareResult`. */
  readonly MiddlewareResult: typeof MiddlewareResult;
}

/** The members of `staged-middleware/agent` the scenarios use. */
export interface AgentEntry {
  /** `Agent`. */
  readonly Agent: typeof Agent;
  /** `AgentStreamStage`. */
  readonly AgentStreamStage: typeof AgentStreamStage;
  /** `ExecuteToolStage`. */
  readonly ExecuteToolStage: typeof ExecuteToolStage;
  /** `InvokeModelStage`. */
  readonly InvokeModelStage: typeof InvokeModelStage;
  /** `InterruptSignal`. */
  readonly InterruptSignal: typeof InterruptSignal;
}

/** The members of `staged-middleware/middleware` the scenarios use. */
export interface MiddlewareEntry {
  /** `retry`. */
  readonly retry: typeof retry;
}

/** The members of `staged-middleware/testing` the scenarios use. */
export interface TestingEntry {
  /** `scriptedTerminal`. */
  readonly scriptedTerminal: typeof scriptedTerminal;
  /** `throws`. */
  readonly throws: typeof throws;
  /** `ScriptedModel`. */
  readonly ScriptedModel: typeof ScriptedModel;
  /** `ScriptedTool`. */
  readonly ScriptedTool: typeof ScriptedTool;
  /** `textTurn`. */
  readonly textTurn: typeof textTurn;
  /** `toolUseTurn`. */
  readonly toolUseTurn: typeof toolUseTurn;
}
