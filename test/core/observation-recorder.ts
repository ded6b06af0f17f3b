/** An instrumentation that records what its observer sees, for the observation tests of the invoke. */
import type { HandlerInfo, Instrumentation, InvokeInfo, InvokeObserver, InvokeOutcome, LayerInfo } from '../../src/core/index';

/** What a recorder saw: the invokes, layers (with their parent as `handler#attempt`), handler reports, outcomes, and the order of layer entries and leaves. */
export interface Recording {
  /** The info of each invoke observed. */
  readonly invokes: InvokeInfo[];
  /** The info of each layer entered, its parent written `handler#attempt`. */
  readonly layers: (Omit<LayerInfo, 'stage' | 'parent'> & { readonly parent: string | undefined })[];
  /** One line per handlerStart and handlerEnd. */
  readonly handlers: string[];
  /** The outcome of each invoke. */
  readonly outcomes: InvokeOutcome[];
  /** `<label>:enter` and `<label>:leave` of each layer, in order. */
  readonly log: string[];
}

/** An instrumentation named `label` whose observer records every hook into the recording it returns. */
export function recorder(label = 'rec'): { instrumentation: Instrumentation; recording: Recording } {
  const recording: Recording = { invokes: [], layers: [], handlers: [], outcomes: [], log: [] };
  const observer: InvokeObserver = {
    layer(info, events) {
      const { stage: _stage, parent, ...rest } = info;
      recording.layers.push({ ...rest, parent: parent === undefined ? undefined : `${parent.handler}#${parent.attempt}` });
      return (async function* observed() {
        recording.log.push(`${label}:enter ${info.handler}#${info.attempt}`);
        try {
          yield* events;
        } finally {
          recording.log.push(`${label}:leave ${info.handler}#${info.attempt}`);
        }
      })();
    },
    handlerStart: (info: HandlerInfo) =>
      recording.handlers.push(`start ${info.phase} ${info.handler} @${info.position} order ${info.order}`),
    handlerEnd: (info: HandlerInfo, ...error: unknown[]) =>
      recording.handlers.push(`end ${info.phase} ${info.handler}${error.length > 0 ? ` failed: ${(error[0] as Error).message}` : ''}`),
    end: (outcome) => recording.outcomes.push(outcome),
  };
  return {
    recording,
    instrumentation: {
      name: label,
      invoke(info) {
        recording.invokes.push(info);
        return observer;
      },
    },
  };
}
