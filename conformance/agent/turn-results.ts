/**
 * What the kit watches of the TurnStage invokes of a loop under test: a loop
 * MUST refuse a result MW-126 makes it refuse, and a loop that acts on one
 * fails its case with a report saying so, instead of a difference that only
 * shows what came of it (a model call the case did not script, say).
 */
import { MiddlewareError, type MiddlewareRegistry } from '../../src/core/index';
import { readTurnResult, TurnStage } from '../../src/agent/index';

/** The TurnStage results of one loop's runs, checked as the loop should check them. */
export class TurnResultWatch {
  /** Why the first result delivered in the run going on cannot be acted on; undefined while each could. */
  private refusable: string | undefined;

  /** Watches every TurnStage invoke of `registry` (an instrumentation that observes only how each ends). */
  constructor(registry: MiddlewareRegistry) {
    registry.instrument({
      name: 'conformanceTurnResults',
      invoke: (info) =>
        info.stage === TurnStage
          ? {
              end: (outcome) => {
                if (outcome.status === 'success' && this.refusable === undefined) this.refusable = problemOf(outcome.result);
              },
            }
          : undefined,
    });
  }

  /** Forgets the results of the runs before: a run starts. */
  startRun(): void {
    this.refusable = undefined;
  }

  /**
   * Throws, naming what the loop did wrong, when a run that the case expects
   * to reject delivered a TurnStage result the loop must refuse, and the run
   * did not reject with the refusal (ERR_INVALID_OPTIONS on the turn stage).
   * A run the case expects to succeed is left to the comparison: a handler of
   * the case may turn the refusal into an answer.
   */
  endRun(loop: string, expectsError: boolean, error: unknown): void {
    if (this.refusable === undefined || !expectsError || refusal(error)) return;
    throw new Error(
      `${loop} acted on a TurnStage result it must refuse (MW-126): ${this.refusable}. ` +
        "A loop rejects the run with that error (ERR_INVALID_OPTIONS, stage 'turn') instead; " +
        'readTurnResult(result) of staged-middleware/agent checks a result and throws it.',
    );
  }
}

/** What is wrong with a delivered TurnStage result, or undefined when a loop can act on it. */
function problemOf(result: unknown): string | undefined {
  try {
    readTurnResult(result);
    return undefined;
  } catch (error) {
    return MiddlewareError.isInstance(error)
      ? error.message.replace(/^\[ERR_INVALID_OPTIONS\] TurnStage: /, '').replace(/\.$/, '')
      : String(error);
  }
}

/** Whether the error is the refusal of a TurnStage result. */
function refusal(error: unknown): boolean {
  return MiddlewareError.isInstance(error) && error.code === 'ERR_INVALID_OPTIONS' && error.stage === TurnStage.name;
}
