/**
 * The handlers of the agent case vocabulary for typed keys of the
 * invocation state (MW-317, MW-318).
 */
import type { MiddlewareRegistry } from '../../src/core/index';
import { createStateKey, InvokeModelStage } from '../../src/agent/index';
import type { AgentCaseHandler } from '../cases/agent-handlers';
import type { World } from './doubles';

/** The schema of a checked count: an integer of at least 0, as `safeParse` answers (no zod, so a port reads it from the text). */
const countSchema = {
  safeParse: (value: unknown) =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0
      ? ({ success: true, data: value } as const)
      : ({ success: false, error: new Error('not a count') } as const),
};

/** Registers one state-key handler of the vocabulary; false when `spec` names none of them. */
export function registerStateKeyHandler(world: World, registry: MiddlewareRegistry, spec: AgentCaseHandler): boolean {
  if (`${spec.stage}.${spec.phase}.${spec.do}` !== 'invokeModel.input.countWithKey') return false;
  const name = spec.name ?? 'calls';
  const key = spec.checked === true ? createStateKey(name, countSchema) : createStateKey<number>(name);
  registry.add(InvokeModelStage.Input, function countWithKey(context) {
    const count = key.get(context);
    world.observations.push(`${name}=${count === undefined ? 'none' : String(count)}`);
    key.set(context, (count ?? 0) + 1);
    return context;
  });
  return true;
}
