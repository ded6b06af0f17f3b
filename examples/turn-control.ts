/**
 * Turn control: handlers that decide after each turn (one model call and the
 * tool calls it asked for) whether the loop goes on, calls the model again or
 * stops, and which messages it adds. Shown in docs/agent-kit.md, "Turn control".
 */
import { MiddlewareRegistry } from '../src/core/index';
import { TurnStage, turnAction, type Message } from '../src/agent/index';

const say = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

/** Four turn controls; each merges its decision into those of the handlers inside it. */
export function turnControls(registry: MiddlewareRegistry, openTodos: () => readonly string[]): void {
  // Stop after ten turns, even when the model asked for tools: stopReason 'stopped', stoppedBy { handler: 'tenTurns' }.
  // (The agent's own limit, new Agent({ maxTurns }), ends a run with stopReason 'maxTurns'.)
  registry.add(
    TurnStage.Wrap,
    turnAction(function tenTurns(context) {
      return context.turn.index >= 10 ? { decision: 'stop', reason: 'ten turns' } : undefined;
    }),
  );
  // The model ended its turn without calling the verifier: inject a nudge and call the model again.
  registry.add(
    TurnStage.Wrap,
    turnAction(function verifier(context) {
      const verified = context.messages.some((message) =>
        message.content.some((block) => block.type === 'toolUse' && block.name === 'verify'),
      );
      return context.ending && !verified ? { decision: 'loopToModel', inject: [say('Call the verifier before you answer.')] } : undefined;
    }),
  );
  // After a turn that ran tools, remind the model of the open todos before its next call.
  registry.add(
    TurnStage.Wrap,
    turnAction(function todoReminder(context) {
      const todos = openTodos();
      return !context.ending && todos.length > 0 ? { inject: [say(`Open todos: ${todos.join(', ')}.`)] } : undefined;
    }),
  );
  // When the run ends (whoever ends it), append a note to the history.
  registry.add(
    TurnStage.Wrap,
    turnAction(function closingNote(context) {
      return { onRunEnd: [{ role: 'assistant', content: [{ type: 'text', text: `Done in ${context.turn.index} turns.` }] }] };
    }),
  );
}
