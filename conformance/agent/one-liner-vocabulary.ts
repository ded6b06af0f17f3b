/**
 * The handlers of the agent case vocabulary for the one-liners of spec
 * section 5d: context editing, tool emulation and selection, the approval
 * policy, stop conditions, the turn's preparation, the dynamic system
 * prompt and prompt caching. Registered by `register` in `vocabulary.ts`; `spec/README.md`
 * says what each one does.
 */
import type { MiddlewareRegistry } from '../../src/core/index';
import {
  ExecuteToolStage,
  InvokeModelStage,
  TurnStage,
  approvalPolicy,
  clearToolResults,
  dynamicSystemPrompt,
  maxTurns,
  prepareTurn,
  promptCaching,
  stopAfterTool,
  stopWhen,
  toolEmulator,
  toolSelector,
  type ApprovalPolicy,
  type Message,
  type TurnContext,
} from '../../src/agent/index';
import type { AgentCaseHandler } from '../cases/agent-handlers';
import { buildModel, type World } from './doubles';

/** Registers one one-liner of the vocabulary; false when `spec` names none of them. */
export function registerOneLinerHandler(world: World, registry: MiddlewareRegistry, spec: AgentCaseHandler): boolean {
  switch (`${spec.stage}.${spec.phase}.${spec.do}`) {
    case 'executeTool.wrap.approvalPolicy':
      registry.add(ExecuteToolStage.Wrap, approvalPolicy((spec.policy ?? {}) as ApprovalPolicy));
      return true;
    case 'turn.wrap.stopWhen': {
      const name = spec.name ?? 'atTurn';
      const condition = { [name]: (context: TurnContext): boolean => spec.turns?.includes(context.turn.index) ?? true }[name];
      registry.add(TurnStage.Wrap, stopWhen(condition as (context: TurnContext) => boolean));
      return true;
    }
    case 'turn.wrap.maxTurns':
      registry.add(TurnStage.Wrap, maxTurns(spec.limit as number));
      return true;
    case 'turn.wrap.stopAfterTool':
      registry.add(TurnStage.Wrap, stopAfterTool(spec.tool as string));
      return true;
    case 'invokeModel.input.prepareTurn':
      registry.add(
        InvokeModelStage.Input,
        prepareTurn((_context, turn) => {
          world.observations.push(`prepare turn ${turn}`);
          return spec.turns === undefined || spec.turns.includes(turn) ? spec.preparation : undefined;
        }),
      );
      return true;
    case 'invokeModel.input.clearToolResults':
      registry.add(
        InvokeModelStage.Input,
        clearToolResults({
          ...(spec.keep === undefined ? {} : { keep: spec.keep }),
          ...(spec.triggerTokens === undefined ? {} : { triggerTokens: spec.triggerTokens }),
          ...(spec.placeholder === undefined ? {} : { placeholder: spec.placeholder }),
          ...(spec.excludeTools === undefined ? {} : { excludeTools: spec.excludeTools }),
          ...(spec.countMessages === true ? { countTokens: (messages: readonly Message[]) => messages.length } : {}),
        }),
      );
      return true;
    case 'executeTool.wrap.toolEmulator': {
      const { model, scripted } = buildModel(world, spec.model ?? []);
      world.childModels.set('toolEmulator', scripted);
      registry.add(ExecuteToolStage.Wrap, toolEmulator({ model, ...(spec.emulate === undefined ? {} : { tools: spec.emulate }) }));
      return true;
    }
    case 'invokeModel.input.toolSelector':
      registry.add(
        InvokeModelStage.Input,
        toolSelector({
          ...(spec.maxTools === undefined ? {} : { maxTools: spec.maxTools }),
          ...(spec.alwaysInclude === undefined ? {} : { alwaysInclude: spec.alwaysInclude }),
        }),
      );
      return true;
    case 'invokeModel.input.dynamicSystemPrompt':
      registry.add(
        InvokeModelStage.Input,
        dynamicSystemPrompt((context) => `${spec.text ?? ''} ${context.messages.length}`),
      );
      return true;
    case 'invokeModel.input.promptCaching':
      registry.add(InvokeModelStage.Input, promptCaching(spec.cacheType === undefined ? {} : { cacheType: spec.cacheType }));
      return true;
    default:
      return false;
  }
}
