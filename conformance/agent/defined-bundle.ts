/**
 * The bundles of the agent cases, `defined` ones included: a `defined`
 * bundle is `defineMiddleware` (MW-315) given, for each hook, the handler
 * that the handler of the vocabulary with its `stage`, `phase` and `do`
 * registers.
 */
import type { AddOptions, Middleware, MiddlewareRegistry, Target } from '../../src/core/index';
import { defineMiddleware, type MiddlewareDefinition } from '../../src/agent/index';
import type { AgentCaseBundle, AgentCaseHandler } from '../cases/agent-handlers';
import { buildTool, type World } from './doubles';
import { buildBundle } from './middleware-vocabulary';
import { buildMcpBundle } from './mcp-double';
import { register } from './vocabulary';

/** The key of a definition each standard stage's hooks go under. */
const DEFINITION_KEYS: Readonly<Record<AgentCaseHandler['stage'], string>> = {
  agentStream: 'run',
  turn: 'turn',
  invokeModel: 'model',
  executeTool: 'tool',
  compressContext: 'compress',
};

/** The bundle a case bundle describes (an `mcp` one once its tools are listed). */
export function buildCaseBundle(world: World, spec: AgentCaseBundle): Middleware | Promise<Middleware> {
  if (spec.kind === 'mcp') return buildMcpBundle(world, spec);
  if (spec.kind !== 'defined') return buildBundle(world, { ...spec, kind: spec.kind });
  const definition: Record<string, unknown> = { name: spec.name ?? 'defined' };
  for (const hook of spec.hooks ?? []) {
    const key = DEFINITION_KEYS[hook.stage];
    const { order, before, after, id } = hook;
    const options = {
      ...(id === undefined ? {} : { id }),
      ...(order === undefined ? {} : { order }),
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
    };
    const handler = handlerOf(world, { ...hook, id: undefined });
    definition[key] = {
      ...(definition[key] as object | undefined),
      [hook.phase]: Object.keys(options).length === 0 ? handler : { handler, ...options },
    };
  }
  if (spec.tools !== undefined) definition.tools = spec.tools.map((tool) => buildTool(world, tool));
  if (spec.unknownKey !== undefined) definition[spec.unknownKey] = {};
  return defineMiddleware(definition as unknown as MiddlewareDefinition);
}

/** The handler the vocabulary registers for `spec`, taken from a registry stand-in that only records it. */
function handlerOf(world: World, spec: AgentCaseHandler): unknown {
  let registered: unknown;
  const recorder = {
    add: (_target: Target, handler: unknown, _options?: AddOptions) => {
      registered = handler;
      return () => undefined;
    },
  };
  register(world, recorder as unknown as MiddlewareRegistry, spec);
  if (registered === undefined) throw new Error(`Case hook "${spec.stage}.${spec.phase}.${spec.do}" registers no handler.`);
  return registered;
}
