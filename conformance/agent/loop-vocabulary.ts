/**
 * The handlers of the agent case vocabulary for the loop controls of spec
 * section 5b: turn decisions, runs ended early, interrupts of the whole run,
 * errors as answers, the agent view. Registered by `register` in
 * `vocabulary.ts`; `spec/README.md` says what each one does.
 */
import { MiddlewareError, type MiddlewareRegistry } from '../../src/core/index';
import {
  AgentStreamStage,
  ExecuteToolStage,
  InvokeModelStage,
  TurnStage,
  agentErrorAnswer,
  errorsAsAnswers,
  modelErrorAnswer,
  toolErrorAnswer,
  turnAction,
  type AgentResultEvent,
  type AgentView,
  type TurnAction,
  type TurnContext,
  type TurnResultEvent,
} from '../../src/agent/index';
import type { AgentCaseHandler } from '../cases/agent-handlers';
import { userError, type World } from './doubles';

/** The agent views the handlers saw, so every observation can say whether it is the first one's object. */
const views = new WeakMap<World, AgentView>();

/** How `observeAgent` shows the view a context carries. */
function describeView(world: World, view: AgentView | undefined): string {
  if (view === undefined) return 'agent none';
  const first = views.get(world) ?? view;
  views.set(world, first);
  const parent = view.parent === undefined ? '' : ` parent=${view.parent.name}/${view.parent.toolUseId}`;
  return `agent ${view.name} session=${view.sessionId ?? 'none'} tools=${view.tools.map((spec) => spec.name).join(',')} frozen=${Object.isFrozen(view) && Object.isFrozen(view.tools)} same=${view === first}${parent}`;
}

/** Registers one loop-control handler of the vocabulary; false when `spec` names none of them. */
export function registerLoopHandler(world: World, registry: MiddlewareRegistry, spec: AgentCaseHandler): boolean {
  switch (`${spec.stage}.${spec.phase}.${spec.do}`) {
    case 'turn.wrap.action': {
      const action = spec.action as unknown as TurnAction;
      const acts = (context: TurnContext, _decided: unknown, call: { readonly signal: AbortSignal }): TurnAction | undefined => {
        if (spec.observeSignal === true)
          world.observations.push(`${spec.name ?? 'action'} signal=${call.signal instanceof AbortSignal} aborted=${call.signal.aborted}`);
        return spec.turns === undefined || spec.turns.includes(context.turn.index) ? action : undefined;
      };
      registry.add(TurnStage.Wrap, turnAction(Object.defineProperty(acts, 'name', { value: spec.name ?? 'action' })));
      return true;
    }
    case 'turn.wrap.stopInProcess': {
      // A decision read from the process (its environment, say), not from the run: what MW-251 forbids.
      const decide = (): TurnAction | undefined => (world.process === spec.value ? { decision: 'stop', reason: 'process' } : undefined);
      registry.add(TurnStage.Wrap, turnAction(Object.defineProperty(decide, 'name', { value: 'stopInProcess' })));
      return true;
    }
    case 'turn.wrap.badResult':
      registry.add(TurnStage.Wrap, async function* badResult() {
        yield { type: 'turnResult', decision: spec.value, inject: [], onRunEnd: [] } as unknown as TurnResultEvent;
      });
      return true;
    case 'turn.input.observe':
      registry.add(TurnStage.Input, (context) => {
        const { turn } = context;
        world.observations.push(
          `turn ${turn.index} ending=${context.ending} tools=${turn.toolResults.length} stop=${turn.stopReason} messages=${context.messages.length} usage=${context.usage.totalTokens}`,
        );
        return context;
      });
      return true;
    case 'turn.output.observe':
      registry.add(TurnStage.Output, (result) => {
        const { decision, inject, onRunEnd, stoppedBy } = result.value;
        world.observations.push(
          `decision ${decision} inject=${inject.length} onRunEnd=${onRunEnd.length} stoppedBy=${stoppedBy?.handler ?? 'none'}`,
        );
        return result;
      });
      return true;
    case 'agentStream.wrap.errorsAsAnswers':
      registry.add(
        AgentStreamStage.Wrap,
        errorsAsAnswers({ toResult: agentErrorAnswer, critical: (error) => spec.critical?.includes((error as Error).message) === true }),
      );
      return true;
    case 'agentStream.wrap.stopAfter':
      registry.add(AgentStreamStage.Wrap, async function* stopAfter(_context, next) {
        let results = 0;
        for await (const event of next()) {
          yield event;
          if (event.type === 'modelResult' && ++results === spec.value) break;
        }
        const ended: AgentResultEvent = {
          type: 'agentResult',
          stopReason: 'endTurn',
          message: undefined,
          interrupts: [],
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        };
        yield ended;
      });
      return true;
    case 'agentStream.wrap.failAfterResult':
      registry.add(AgentStreamStage.Wrap, async function* failAfterResult(_context, next) {
        yield* next();
        yield { type: 'textDelta', text: 'after the result' };
        throw userError(world, 'failed after the result');
      });
      return true;
    case 'agentStream.wrap.gate':
      registry.add(AgentStreamStage.Wrap, async function* gate(context, next) {
        const asking = spec.spread === true ? { ...context } : context;
        const presupplied = spec.presupplied === undefined ? undefined : context.invocationState[spec.presupplied];
        const { response } = asking.interrupt({ name: spec.name ?? 'approve', reason: spec.reason, response: presupplied });
        world.observations.push(`gate ${String(response)}`);
        yield* next();
      });
      return true;
    case 'agentStream.input.gate':
      registry.add(AgentStreamStage.Input, (context) => {
        const { response } = context.interrupt({ name: spec.name ?? 'approve', reason: spec.reason });
        world.observations.push(`input gate ${String(response)}`);
        return context;
      });
      return true;
    case 'agentStream.wrap.lateInterrupt':
      registry.add(AgentStreamStage.Wrap, async function* lateInterrupt(context, next) {
        yield* next();
        context.interrupt({ name: spec.name ?? 'late' });
      });
      return true;
    case 'agentStream.input.observeState':
      registry.add(AgentStreamStage.Input, (context) => {
        world.observations.push(`state ${JSON.stringify(context.invocationState)}`);
        return context;
      });
      return true;
    case 'executeTool.wrap.errorsAsAnswers':
      registry.add(
        ExecuteToolStage.Wrap,
        errorsAsAnswers({ toResult: toolErrorAnswer, critical: (error) => spec.critical?.includes((error as Error).message) === true }),
      );
      return true;
    case 'invokeModel.wrap.errorsAsAnswers':
      registry.add(
        InvokeModelStage.Wrap,
        errorsAsAnswers({ toResult: modelErrorAnswer, critical: (error) => spec.critical?.includes((error as Error).message) === true }),
      );
      return true;
    case 'executeTool.wrap.fail':
      registry.add(ExecuteToolStage.Wrap, async function* fail(context, next) {
        if (spec.tool !== undefined && context.toolUse.name !== spec.tool) return yield* next();
        throw userError(world, spec.message ?? 'guard failed');
      });
      return true;
    case 'invokeModel.wrap.fail': {
      const { pattern } = spec;
      registry.add(InvokeModelStage.Wrap, async function* fail(context, next) {
        const last = context.messages.at(-1)?.content ?? [];
        const text = last.map((block) => (block.type === 'text' ? block.text : '')).join('');
        if (pattern !== undefined && !new RegExp(pattern, 'u').test(text)) return yield* next();
        throw userError(world, spec.message ?? 'guard failed');
      });
      return true;
    }
    case 'executeTool.wrap.dropResult':
      // eslint-disable-next-line require-yield -- the case is a Wrap handler that drops every event, its result included
      registry.add(ExecuteToolStage.Wrap, async function* dropResult(_context, next) {
        for await (const _event of next());
      });
      return true;
    case 'executeTool.output.observeCode':
      registry.add(ExecuteToolStage.Output, (result) => {
        const { toolResult, error } = result.value;
        world.observations.push(
          `result ${toolResult.toolUseId} ${toolResult.status} code=${MiddlewareError.isInstance(error) ? error.code : 'none'}`,
        );
        return result;
      });
      return true;
    case 'agentStream.input.observeAgent':
      registry.add(AgentStreamStage.Input, (context) => {
        world.observations.push(`agentStream ${describeView(world, context.agent)}`);
        return context;
      });
      return true;
    case 'invokeModel.input.observeAgent':
      registry.add(InvokeModelStage.Input, (context) => {
        world.observations.push(`invokeModel ${describeView(world, context.agent)}`);
        return context;
      });
      return true;
    case 'executeTool.input.observeAgent':
      registry.add(ExecuteToolStage.Input, (context) => {
        world.observations.push(`executeTool ${describeView(world, context.agent)}`);
        return context;
      });
      return true;
    case 'turn.input.observeAgent':
      registry.add(TurnStage.Input, (context) => {
        world.observations.push(`turn ${describeView(world, context.agent)}`);
        return context;
      });
      return true;
    default:
      return false;
  }
}
