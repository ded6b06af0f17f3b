/**
 * The handler vocabulary of the agent cases: what each `{ stage, phase, do }`
 * registers. Handlers that observe something append a text to the world's
 * observations.
 */
import { castDraft, produce } from 'immer';
import type { MiddlewareRegistry, SystemContentBlock, WrapHandler } from '../../src/core/index';
import {
  AgentStreamStage,
  CompressContextStage,
  ExecuteToolStage,
  InvokeModelStage,
  TurnStage,
  type AgentEvent,
  type Message,
  type StopReason,
  type ToolResultBlock,
} from '../../src/agent/index';
import { retry } from '../../src/middleware/index';
import type { AgentCaseHandler } from '../cases/agent-handlers';
import type { AgentLoopSession } from './adapter';
import { userError, type World } from './doubles';
import { registerLoopHandler } from './loop-vocabulary';
import { registerMiddlewareHandler } from './middleware-vocabulary';
import { registerStateKeyHandler } from './state-key-vocabulary';
import { registerOneLinerHandler } from './one-liner-vocabulary';

/** How an observation shows a tool result's error: none, its message, or its type when it has no readable message. */
function errorText(event: { readonly error?: unknown }): string {
  if (!('error' in event)) return 'none';
  try {
    const message = (event.error as { message?: unknown } | null | undefined)?.message;
    if (typeof message === 'string') return message;
  } catch {
    // Falls through to the type.
  }
  return `(${typeof event.error})`;
}

/**
 * A Wrap handler that runs the inner chain again after an error, `attempts`
 * times in all, telling `onRetry` about each error it retries.
 */
export function retrying<TContext, TEvent>(attempts: number, onRetry: (error: Error) => void): WrapHandler<TContext, TEvent> {
  const handler: WrapHandler<TContext, TEvent> = async function* retry(_context, next) {
    for (let attempt = 1; ; attempt++) {
      try {
        yield* next();
        return;
      } catch (error) {
        if (attempt >= attempts) throw error;
        onRetry(error as Error);
      }
    }
  };
  // Named explicitly: a bundler may rename the function, and the traced cases read its name in span names.
  return Object.defineProperty(handler, 'name', { value: 'retry' });
}

/**
 * A Wrap handler that runs two whole inner chains at once, pulled one event
 * each in turn (so their steps interleave deterministically), and keeps the
 * first to finish: it closes the other and delivers the winner's events.
 */
export function hedging<TContext>(onKept: (index: number) => void = () => undefined): WrapHandler<TContext, AgentEvent> {
  return async function* hedge(_context, next) {
    const attempts = [next(), next()];
    const buffered: AgentEvent[][] = [[], []];
    for (;;) {
      for (const [index, attempt] of attempts.entries()) {
        const pulled = await attempt.next();
        if (pulled.done === true) {
          onKept(index);
          await attempts[1 - index]?.return();
          yield* buffered[index] as AgentEvent[];
          return;
        }
        buffered[index]?.push(pulled.value);
      }
    }
  };
}

/** The stages a case names, by name. */
export const stages = {
  agentStream: AgentStreamStage,
  invokeModel: InvokeModelStage,
  executeTool: ExecuteToolStage,
  turn: TurnStage,
  compressContext: CompressContextStage,
} as const;

/** Registers one vocabulary handler; `spec/README.md` says what each stage, phase and `do` registers. */
export function register(world: World, registry: MiddlewareRegistry, spec: AgentCaseHandler): void {
  const stage = stages[spec.stage];
  const unsupported = (): never => {
    throw new Error(`Case handler "${spec.do}" is not defined for ${spec.stage}.${spec.phase}.`);
  };
  if (registerLoopHandler(world, registry, spec)) return;
  if (registerMiddlewareHandler(world, registry, spec)) return;
  if (registerStateKeyHandler(world, registry, spec)) return;
  if (registerOneLinerHandler(world, registry, spec)) return;
  const key = `${spec.stage}.${spec.phase}.${spec.do}`;
  switch (key) {
    case 'invokeModel.input.appendSystemText':
      registry.add(InvokeModelStage.Input, (context) => ({
        ...context,
        systemPrompt: [...context.systemPrompt, { text: spec.text ?? '' }],
      }));
      return;
    case 'invokeModel.input.replaceSystemPrompt':
      registry.add(InvokeModelStage.Input, (context) => ({ ...context, systemPrompt: spec.value as unknown as SystemContentBlock[] }));
      return;
    case 'invokeModel.input.observeFrozen':
      registry.add(InvokeModelStage.Input, (context) => {
        const first = context.messages[0];
        world.observations.push(
          `frozen context=${Object.isFrozen(context)} messages=${Object.isFrozen(context.messages)} firstMessage=${first === undefined ? 'none' : Object.isFrozen(first)} invocationState=${Object.isFrozen(context.invocationState)} sharesHistory=${first === undefined ? 'none' : first === world.session?.messages[0]}`,
        );
        return context;
      });
      return;
    case 'invokeModel.wrap.pushMessage':
      registry.add(InvokeModelStage.Wrap, async function* pushMessage(context, next) {
        try {
          (context.messages as Message[]).push({ role: 'user', content: [{ type: 'text', text: spec.text ?? 'pushed' }] });
          world.observations.push('push succeeded');
        } catch (error) {
          world.observations.push(`push threw ${(error as Error).name}`);
        }
        yield* next();
      });
      return;
    case 'invokeModel.wrap.nextWithExtraMessage':
      registry.add(InvokeModelStage.Wrap, async function* nextWithExtraMessage(context, next) {
        const extra: Message = { role: 'user', content: [{ type: 'text', text: spec.text ?? '' }] };
        yield* next({ ...context, messages: produce(context.messages, (draft) => void draft.push(castDraft(extra))) });
      });
      return;
    case 'invokeModel.wrap.setModelState':
      registry.add(InvokeModelStage.Wrap, async function* setModelState(_context, next) {
        const session = world.session as AgentLoopSession;
        if (spec.when !== 'after') session.modelState = spec.value as Record<string, unknown>;
        yield* next();
        if (spec.when === 'after') session.modelState = spec.value as Record<string, unknown>;
      });
      return;
    case 'invokeModel.input.setModelState':
      registry.add(InvokeModelStage.Input, (context) => {
        (world.session as AgentLoopSession).modelState = spec.value as Record<string, unknown>;
        return context;
      });
      return;
    case 'invokeModel.wrap.respond':
      registry.add(InvokeModelStage.Wrap, async function* respond() {
        yield {
          type: 'modelResult',
          message: { role: 'assistant', content: [{ type: 'text', text: spec.text ?? '' }] },
          stopReason: 'endTurn',
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        };
      });
      return;
    case 'invokeModel.wrap.retry':
      registry.add(
        InvokeModelStage.Wrap,
        retrying(spec.attempts ?? 2, (error) => world.observations.push(`retry after: ${error.message}`)),
      );
      return;
    case 'invokeModel.output.setStopReason':
      registry.add(InvokeModelStage.Output, (result) => result.replace({ ...result.value, stopReason: spec.value as StopReason }));
      return;
    case 'invokeModel.output.replaceText':
      registry.add(InvokeModelStage.Output, (result) =>
        result.update((draft) => {
          for (const block of draft.message.content)
            if (block.type === 'text') block.text = block.text.replace(new RegExp(spec.pattern ?? '', 'g'), spec.replacement ?? '');
        }),
      );
      return;
    case 'invokeModel.output.fail':
      registry.add(InvokeModelStage.Output, () => {
        throw userError(world, spec.message ?? 'output failed');
      });
      return;
    case 'executeTool.input.observe':
      registry.add(ExecuteToolStage.Input, (context) => {
        world.observations.push(
          `tool ${context.toolUse.name} known=${context.tool !== undefined} signal=${context.signal instanceof AbortSignal}`,
        );
        return context;
      });
      return;
    case 'executeTool.wrap.block':
      registry.add(ExecuteToolStage.Wrap, async function* block(context, next) {
        if (context.toolUse.name !== spec.tool) return yield* next();
        yield {
          type: 'toolResult',
          toolResult: {
            type: 'toolResult',
            toolUseId: context.toolUse.toolUseId,
            name: context.toolUse.name,
            status: 'error',
            content: [{ type: 'text', text: spec.text ?? 'blocked' }],
          },
        };
      });
      return;
    case 'executeTool.wrap.blockWithoutName':
      registry.add(ExecuteToolStage.Wrap, async function* blockWithoutName(context, next) {
        if (context.toolUse.name !== spec.tool) return yield* next();
        // As untyped code, or an older copy of the package, builds it: no name.
        const toolResult = {
          type: 'toolResult',
          toolUseId: context.toolUse.toolUseId,
          status: 'error',
          content: [{ type: 'text', text: spec.text ?? 'blocked' }],
        } as unknown as ToolResultBlock;
        yield { type: 'toolResult', toolResult };
      });
      return;
    case 'executeTool.wrap.approval':
      registry.add(ExecuteToolStage.Wrap, async function* approval(context, next) {
        if (context.toolUse.name !== spec.tool) return yield* next();
        const presupplied = spec.presupplied === undefined ? undefined : context.invocationState[spec.presupplied];
        const { response } = context.interrupt({ name: spec.name ?? 'approve', reason: spec.reason, response: presupplied });
        world.observations.push(`approval ${context.toolUse.toolUseId} ${String(response)}`);
        if (response === 'yes') return yield* next();
        yield {
          type: 'toolResult',
          toolResult: {
            type: 'toolResult',
            toolUseId: context.toolUse.toolUseId,
            name: context.toolUse.name,
            status: 'error',
            content: [{ type: 'text', text: 'denied' }],
          },
        };
      });
      return;
    case 'executeTool.output.observe':
      registry.add(ExecuteToolStage.Output, (result) => {
        const { toolResult } = result.value;
        world.observations.push(`result ${toolResult.toolUseId} ${toolResult.status} error=${errorText(result.value)}`);
        return result;
      });
      return;
    case 'agentStream.wrap.observeFinally':
      registry.add(AgentStreamStage.Wrap, async function* observeFinally(_context, next) {
        try {
          yield* next();
        } finally {
          world.observations.push('agentStream finally');
        }
      });
      return;
    case 'agentStream.wrap.retry':
      registry.add(
        AgentStreamStage.Wrap,
        retrying(spec.attempts ?? 2, (error) => world.observations.push(`run retry after: ${error.message}`)),
      );
      return;
    case 'agentStream.wrap.hedge':
      registry.add(
        AgentStreamStage.Wrap,
        hedging((index) => world.observations.push(`hedge kept ${index + 1}`)),
      );
      return;
    case 'agentStream.input.replaceInput':
      registry.add(AgentStreamStage.Input, (context) => ({ ...context, messages: spec.value as unknown as Message[] }));
      return;
    default:
      if (spec.do === 'passThrough' && spec.phase === 'wrap') {
        registry.add(stage.Wrap as typeof AgentStreamStage.Wrap, async function* passThrough(_context, next) {
          yield* next();
        });
        return;
      }
      if (spec.do === 'liveRetry' && spec.phase === 'wrap') {
        registry.add(
          stage.Wrap as typeof AgentStreamStage.Wrap,
          retry({ stream: 'live', attempts: spec.attempts ?? 2, retryOn: () => true, backoff: () => 0 }),
        );
        return;
      }
      if (spec.do === 'builtinRetry' && spec.phase === 'wrap') {
        const onRetry = (info: { readonly error: unknown }): void =>
          void world.observations.push(`retry after: ${(info.error as Error).message}`);
        registry.add(stage.Wrap as typeof AgentStreamStage.Wrap, retry({ attempts: spec.attempts ?? 3, backoff: () => 0, onRetry }));
        return;
      }
      if (spec.do === 'countInvocationState' && spec.phase === 'input') {
        registry.add(stage.Input as typeof AgentStreamStage.Input, (context) => {
          context.invocationState.count = ((context.invocationState.count as number | undefined) ?? 0) + 1;
          return context;
        });
        return;
      }
      unsupported();
  }
}
