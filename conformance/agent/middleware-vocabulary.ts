/**
 * The bundles and handlers of the agent case vocabulary for the agent
 * middleware of spec sections 5c and 5d: contributed tools, compression, the todo
 * list, sub-agents, the composition functions, the call limits.
 */
import type { Middleware, MiddlewareRegistry } from '../../src/core/index';
import {
  AgentStreamStage,
  CompressContextStage,
  ContextBudgetKey,
  ExecuteToolStage,
  InvokeModelStage,
  ToolsKey,
  TurnStage,
  afterToolCall,
  checkFinalAnswer,
  compaction,
  modelCallLimit,
  pii,
  subagent,
  toolCallLimit,
  todoList,
  type InvokeModelContext,
  type Message,
  type MiddlewareModelCaller,
  type PiiType,
} from '../../src/agent/index';
import { z } from 'zod';
import type { AgentCaseBundle, AgentCaseHandler } from '../cases/agent-handlers';
import { buildModel, buildTool, textOf, userError, type World } from './doubles';

/** What an afterToolCall hook returns. */
type ToolResultPatch = ReturnType<Parameters<typeof afterToolCall>[0]>;

/** One token per message: a counter whose counts a case can state by looking at the history. */
const countMessages = (messages: readonly Message[]): number => messages.length;

/** JSON text with the keys of every object in code-unit order, so an observation does not depend on the order keys were written in. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([first], [second]) => (first < second ? -1 : first > second ? 1 : 0)))
      : inner,
  );
}

/** The bundle a case bundle describes (a `defined` one is built by `defined-bundle.ts`, which needs the whole vocabulary). */
export function buildBundle(
  world: World,
  spec: AgentCaseBundle & { readonly kind: Exclude<AgentCaseBundle['kind'], 'defined' | 'mcp'> },
): Middleware {
  switch (spec.kind) {
    case 'tools': {
      const tools = (spec.tools ?? []).map((tool) => buildTool(world, tool));
      return {
        name: spec.name ?? 'tools',
        setup: (registrar) => {
          tools.forEach((tool) => registrar.provide(ToolsKey, tool));
        },
      };
    }
    case 'todoList':
      return todoList({
        ...(spec.instructions === undefined ? {} : { instructions: spec.instructions }),
        ...(spec.staleAfter === undefined ? {} : { staleAfter: spec.staleAfter }),
        ...(spec.finishGuard === undefined ? {} : { finishGuard: spec.finishGuard }),
        ...(spec.escalateAfter === undefined ? {} : { escalateAfter: spec.escalateAfter }),
      });
    case 'compaction':
      return compaction({
        maxTokens: spec.maxTokens ?? 0,
        ...(spec.keepRecent === undefined ? {} : { keepRecent: spec.keepRecent }),
        ...(spec.countMessages === true ? { countTokens: countMessages } : {}),
        ...(spec.instructions === undefined ? {} : { summarize: { instructions: spec.instructions } }),
        ...(spec.keepRecentTokens === undefined ? {} : { keepRecentTokens: spec.keepRecentTokens }),
        ...(spec.minMessages === undefined ? {} : { minMessages: spec.minMessages }),
        ...(spec.maxSummaryTokens === undefined ? {} : { maxSummaryTokens: spec.maxSummaryTokens }),
        ...(spec.pruneToolOutputs === undefined ? {} : { pruneToolOutputs: spec.pruneToolOutputs }),
        ...(spec.carrySummary === undefined ? {} : { carrySummary: spec.carrySummary }),
        ...(spec.fallback === undefined ? {} : { fallback: spec.fallback }),
        ...(spec.maxFailures === undefined ? {} : { maxFailures: spec.maxFailures }),
        ...(spec.minSavings === undefined ? {} : { minSavings: spec.minSavings }),
      });
    case 'budget':
      return {
        name: 'budget',
        setup: (registrar) =>
          void registrar.provide(ContextBudgetKey, {
            maxTokens: spec.maxTokens ?? 0,
            ...(spec.countMessages === true ? { countTokens: countMessages } : {}),
          }),
      };
    case 'subagent': {
      const name = spec.name ?? 'helper';
      const { model, scripted } = buildModel(world, spec.model ?? []);
      world.childModels.set(name, scripted);
      return subagent<unknown>({
        name,
        description: spec.description ?? 'Delegates a task.',
        model,
        tools: (spec.tools ?? []).map((tool) => buildTool(world, tool)),
        ...(spec.inherit === undefined ? {} : { inherit: spec.inherit }),
        ...(spec.systemPrompt === undefined ? {} : { systemPrompt: spec.systemPrompt }),
        ...(spec.inputSchema === undefined ? {} : { input: z.fromJSONSchema(spec.inputSchema) }),
        ...(spec.result === undefined ? {} : { result: spec.result }),
        ...(spec.events === undefined ? {} : { events: spec.events }),
      });
    }
    case 'modelCallLimit':
      return modelCallLimit({
        ...(spec.runLimit === undefined ? {} : { runLimit: spec.runLimit }),
        ...(spec.sessionLimit === undefined ? {} : { sessionLimit: spec.sessionLimit }),
      });
    case 'toolCallLimit':
      return toolCallLimit({
        ...(spec.tool === undefined ? {} : { tool: spec.tool }),
        ...(spec.runLimit === undefined ? {} : { runLimit: spec.runLimit }),
        ...(spec.sessionLimit === undefined ? {} : { sessionLimit: spec.sessionLimit }),
        ...(spec.onLimit === undefined ? {} : { onLimit: spec.onLimit }),
      });
    case 'pii':
      return pii({
        ...(spec.types === undefined ? {} : { types: spec.types as PiiType[] }),
        ...(spec.patterns === undefined
          ? {}
          : {
              patterns: spec.patterns.map(({ name, source, maxLength }) => ({
                name,
                pattern: new RegExp(source),
                ...(maxLength === undefined ? {} : { maxLength }),
              })),
            }),
        ...(spec.input === undefined ? {} : { input: spec.input }),
        ...(spec.output === undefined ? {} : { output: spec.output }),
        ...(spec.toolResults === undefined ? {} : { toolResults: spec.toolResults }),
      });
    case 'throwing':
      return {
        name: 'throwing',
        setup: () => {
          throw userError(world, 'setup failed');
        },
      };
  }
}

/** Registers one agent-middleware handler of the vocabulary; false when `spec` names none of them. */
export function registerMiddlewareHandler(world: World, registry: MiddlewareRegistry, spec: AgentCaseHandler): boolean {
  const options = { ...(spec.id === undefined ? {} : { id: spec.id }), ...(spec.replace === undefined ? {} : { replace: spec.replace }) };
  switch (`${spec.stage}.${spec.phase}.${spec.do}`) {
    case 'executeTool.output.afterToolCall': {
      const hook = (
        result: { readonly toolResult: { readonly toolUseId: string } },
        call: { readonly signal: AbortSignal },
      ): ToolResultPatch | undefined => {
        world.observations.push(`${spec.name ?? 'afterToolCall'} ${result.toolResult.toolUseId}`);
        if (spec.observeSignal === true)
          world.observations.push(
            `${spec.name ?? 'afterToolCall'} signal=${call.signal instanceof AbortSignal} aborted=${call.signal.aborted}`,
          );
        return spec.tool === undefined || result.toolResult.toolUseId === spec.tool ? (spec.patch as ToolResultPatch) : undefined;
      };
      registry.add(ExecuteToolStage.Output, afterToolCall(Object.defineProperty(hook, 'name', { value: spec.name ?? '' })), options);
      return true;
    }
    case 'invokeModel.wrap.checkFinalAnswer':
      registry.add(
        InvokeModelStage.Wrap,
        checkFinalAnswer({
          check: (message) => {
            const text = textOf(message.content);
            if (!new RegExp(spec.pattern ?? '').test(text)) throw new Error(`"${text}" does not match ${spec.pattern ?? ''}`);
          },
          ...(spec.attempts === undefined ? {} : { maxAttempts: spec.attempts }),
          ...(spec.nonCritical === true ? { critical: false } : {}),
        }),
        options,
      );
      return true;
    case 'compressContext.wrap.keepLast':
      registry.add(
        CompressContextStage.Wrap,
        async function* keepLast(context) {
          yield { type: 'contextResult', messages: context.messages.slice(-(spec.value as number)) };
        },
        options,
      );
      return true;
    case 'compressContext.input.observe':
      registry.add(CompressContextStage.Input, (context) => {
        world.observations.push(`compress tokens=${context.tokens} max=${context.maxTokens} messages=${context.messages.length}`);
        return context;
      });
      return true;
    case 'turn.wrap.extraCall':
    case 'executeTool.wrap.extraCall': {
      const caller = spec.name ?? 'extraCall';
      const extraCall = async function* (
        context: { readonly invokeModel?: MiddlewareModelCaller },
        next: () => AsyncGenerator<never, void, undefined>,
      ): AsyncGenerator<never, void, undefined> {
        if (context.invokeModel === undefined) world.observations.push(`${caller} none`);
        else {
          const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: spec.text ?? '' }] }];
          const result = await context.invokeModel({ caller, messages });
          world.observations.push(`${caller} ${textOf(result.message.content)}`);
        }
        yield* next();
      };
      Object.defineProperty(extraCall, 'name', { value: 'extraCall' });
      if (spec.stage === 'turn') registry.add(TurnStage.Wrap, extraCall as never);
      else registry.add(ExecuteToolStage.Wrap, extraCall as never);
      return true;
    }
    case 'invokeModel.input.observeCaller':
      registry.add(InvokeModelStage.Input, (context) => {
        world.observations.push(
          `model call ${context.agent?.name ?? 'none'} caller=${context.caller ?? 'none'} messages=${context.messages.length}`,
        );
        return context;
      });
      return true;
    case 'invokeModel.input.observeModelState':
      registry.add(InvokeModelStage.Input, (context) => {
        world.observations.push(
          `modelState ${JSON.stringify(context.modelState ?? null)} frozen=${context.modelState === undefined || Object.isFrozen(context.modelState)}`,
        );
        return context;
      });
      return true;
    case 'invokeModel.input.convertToLlm': {
      const convert = (context: InvokeModelContext): InvokeModelContext => {
        world.observations.push(`convert ${spec.name ?? ''}`);
        return context;
      };
      registry.add(InvokeModelStage.Input, Object.defineProperty(convert, 'name', { value: spec.name ?? 'convertToLlm' }), options);
      return true;
    }
    case 'agentStream.wrap.observeCompressed':
      registry.add(AgentStreamStage.Wrap, async function* observeCompressed(_context, next) {
        for await (const event of next()) {
          if (event.type === 'contextCompressed')
            world.observations.push(`compressed replaced=${event.replaced.length} messages=${event.messages.length}`);
          yield event;
        }
      });
      return true;
    case 'turn.input.observeStateKey':
      registry.add(TurnStage.Input, (context) => {
        const key = spec.name ?? '';
        const value = Object.hasOwn(context.invocationState, key) ? context.invocationState[key] : undefined;
        world.observations.push(`key ${key} ${value === undefined ? 'none' : sortedJson(value)}`);
        return context;
      });
      return true;
    case 'agentStream.wrap.observeText':
      registry.add(AgentStreamStage.Wrap, async function* observeText(_context, next) {
        for await (const event of next()) {
          if (event.type === 'textDelta') world.observations.push(`text ${JSON.stringify(event.text)}`);
          yield event;
        }
      });
      return true;
    default:
      return false;
  }
}
