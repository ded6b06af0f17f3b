/**
 * Interrupts of the whole run, interrupt events and external tools: a
 * question before the agent starts, and a caller that answers every question
 * and runs every external call until the run ends. Shown in docs/agent-kit.md,
 * "Asking a human, and tools the caller runs".
 */
import { MiddlewareRegistry } from '../src/core/index';
import { AgentStreamStage, EXTERNAL_TOOL, type Agent, type Tool } from '../src/agent/index';

/** Asks before every run (interrupt id `agentStream:approveRun`); a refusal ends the run before it starts. */
export function approveRuns(registry: MiddlewareRegistry): void {
  registry.add(AgentStreamStage.Wrap, async function* approveRun(context, next) {
    const { response } = context.interrupt({ name: 'approveRun', reason: `${context.agent?.name ?? 'The agent'} wants to start.` });
    if (response === 'yes') return yield* next();
    yield {
      type: 'agentResult',
      stopReason: 'endTurn',
      message: undefined,
      interrupts: [],
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    };
  });
}

/** A tool the browser runs: it has no `run`, so its calls halt the run until the caller sends their results. */
export const geolocate: Tool = { spec: { name: 'geolocate', description: "The user's position.", inputSchema: { type: 'object' } } };

/** Runs the agent to its end, asking `human` each question and `browser` each external call, as soon as they come. */
export async function runToTheEnd(
  agent: Agent,
  input: string,
  human: (reason: unknown) => Promise<unknown>,
  browser: (toolUse: unknown) => Promise<unknown>,
): Promise<string> {
  let run = agent.stream(input);
  for (;;) {
    const answers: Promise<[string, unknown]>[] = [];
    let stopReason = '';
    for await (const event of run) {
      // Yielded the moment it is raised: the other tool calls of the turn go on while it is being answered.
      if (event.type === 'interrupt') {
        const { id, name, reason } = event.interrupt;
        answers.push((name === EXTERNAL_TOOL ? browser(reason) : human(reason)).then((response) => [id, response]));
      }
      if (event.type === 'agentResult') stopReason = event.stopReason;
    }
    if (stopReason !== 'interrupt') return stopReason;
    run = agent.stream(undefined, { interruptResponses: Object.fromEntries(await Promise.all(answers)) });
  }
}
