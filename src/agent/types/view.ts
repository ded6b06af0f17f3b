/**
 * What handlers see of the running agent: the frozen view every stage context
 * carries as `agent`. Pure types.
 *
 * @packageDocumentation
 */
import type { ToolSpec } from './tool';

/** What handlers may read of the running agent: frozen, and holding nothing that changes it. */
export interface AgentView {
  /** The agent's name (`options.name`, default `'agent'`). */
  readonly name: string;
  /** The id of the agent's session, when it has one. */
  readonly sessionId: string | undefined;
  /** The tool specs the model receives: the agent's own tools and those bundles contribute. */
  readonly tools: readonly ToolSpec[];
  /** The agent and tool call this agent works for, when it is a sub-agent. */
  readonly parent?: AgentParent;
}

/** The agent and tool call a sub-agent works for. */
export interface AgentParent {
  /** The parent agent's name. */
  readonly name: string;
  /** The id of the parent's tool use that delegated to this agent. */
  readonly toolUseId: string;
}
