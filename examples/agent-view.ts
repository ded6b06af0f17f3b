/**
 * What handlers see of the agent: a frozen view on every context the agent
 * builds. Shown in docs/agent-kit.md, "What handlers see of the agent".
 */
import { MiddlewareRegistry } from '../src/core/index';
import { ExecuteToolStage } from '../src/agent/index';

/** Logs each tool call with the agent's name and session, as AgentScope and Strands hooks read them off the agent. */
export function auditTools(registry: MiddlewareRegistry, log: (line: string) => void): void {
  registry.add(ExecuteToolStage.Input, function auditTool(context) {
    const { name, sessionId, tools } = context.agent ?? { name: 'own loop', sessionId: undefined, tools: [] };
    log(`${name} (session ${sessionId ?? 'none'}, ${tools.length} tools) calls ${context.toolUse.name}`);
    return context;
  });
}
