/**
 * What the loop goes on with: frozen copies of the results handlers made, so
 * no one downstream of an event can change the history through it.
 */
import { frozenCopy } from './freeze';
import type { AgentEvent } from './stage-types';
import { isModelResult, isToolResult } from './stages';

/**
 * A model or tool result as the loop keeps it: frozen. The terminals' own
 * results are; one a handler made is copied (a tool result's `error` kept as
 * it is) before it is yielded, so no one downstream can change what the loop goes on with.
 */
export function freezeResultEvent(event: AgentEvent): AgentEvent {
  if (isModelResult(event)) return frozenCopy(event, 'modelResult');
  if (!isToolResult(event) || (Object.isFrozen(event) && Object.isFrozen(event.toolResult))) return event;
  return Object.freeze({ ...event, toolResult: frozenCopy(event.toolResult, 'toolResult') });
}
