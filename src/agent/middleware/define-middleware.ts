/**
 * `defineMiddleware()`: one object per concern, its hooks keyed by stage and
 * phase, compiled into a bundle whose registrations keep every feature of
 * `add` (MW-315), after checking the whole definition (MW-316).
 */
import type { AddOptions, AnyStage, Middleware, Registrar } from '../../core/index';
import { isObject } from '../../util/is-object';
import { invalidDefinition } from '../errors';
import { AgentStreamStage, CompressContextStage, ExecuteToolStage, InvokeModelStage, TurnStage } from '../stages';
import { ToolsKey } from '../tools/agent-tools';
import type { MiddlewareDefinition } from '../types/middleware-definition';
import type { Tool } from '../types/tool';

/** The stage keys of a definition in registration order, with their stages. */
const STAGE_KEYS: readonly (readonly [string, AnyStage])[] = [
  ['run', AgentStreamStage],
  ['turn', TurnStage],
  ['model', InvokeModelStage],
  ['tool', ExecuteToolStage],
  ['compress', CompressContextStage],
];

const PHASES = ['input', 'wrap', 'output'] as const;

const DEFINITION_KEYS: readonly string[] = /*#__PURE__*/ ['name'].concat(
  /*#__PURE__*/ STAGE_KEYS.map(([key]) => key),
  ['tools', 'use', 'setup'],
);

const HOOK_KEYS: readonly string[] = ['handler', 'id', 'name', 'order', 'before', 'after', 'next', 'replace'];

/** Where the keys of LangChain's `createMiddleware` go in a definition, for the message that refuses them. */
const PORTED_KEYS: Readonly<Record<string, string>> = {
  beforeAgent: 'use run.input',
  afterAgent: 'use run.output',
  beforeModel: 'use model.input',
  modifyModelRequest: 'use model.input',
  afterModel: 'use model.output',
  wrapModelCall: 'use model.wrap',
  wrapToolCall: 'use tool.wrap',
  stateSchema: 'keep such state in the model state (context.modelState)',
  contextSchema: 'keep such values in the invocation state (context.invocationState)',
};

/** One registration a definition compiles to. */
interface Compiled {
  readonly target: AnyStage['Input'] | AnyStage['Wrap'] | AnyStage['Output'];
  readonly handler: unknown;
  readonly options: AddOptions;
}

/**
 * Compiles one concern, written as one object, into a bundle: each hook is
 * registered on its stage and phase with the id `<name>.<key>.<phase>` (and
 * that name, unless the hook gives its own) and the options its hook object
 * gives; then the tools are provided under `ToolsKey`, the bundles of `use`
 * set up, and `setup` called. The definition is read once, now.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'defineMiddleware'`) when the definition
 *   has a key, a stage key or a hook it does not know, or a value of the wrong kind; the message names its path.
 * @example
 * ```ts
 * registry.use(
 *   defineMiddleware({
 *     name: 'audit',
 *     model: { input: (context) => ({ ...context, systemPrompt: [...context.systemPrompt, { text: 'Be brief.' }] }) },
 *     tool: { wrap: { order: -10, handler: async function* (context, next) { yield* next(); } } },
 *   }),
 * );
 * ```
 */
export function defineMiddleware(definition: MiddlewareDefinition): Middleware {
  if (!isObject(definition))
    throw invalidDefinition(
      undefined,
      'the definition',
      'must be an object { name, run?, turn?, model?, tool?, compress?, tools?, use?, setup? }',
      definition,
    );
  const name: unknown = definition.name;
  if (typeof name !== 'string' || name.length === 0) throw invalidDefinition(name, 'name', 'must be a non-empty string', name);
  for (const key of Object.keys(definition)) {
    if (DEFINITION_KEYS.includes(key)) continue;
    const ported = PORTED_KEYS[key];
    throw invalidDefinition(
      name,
      key,
      `is not a key of a definition (${ported ?? `use ${DEFINITION_KEYS.join(', ')}`})`,
      (definition as unknown as Record<string, unknown>)[key],
    );
  }
  const compiled = STAGE_KEYS.flatMap(([key, stage]) =>
    compileStage(name, key, stage, (definition as unknown as Record<string, unknown>)[key]),
  );
  const tools = arrayOf(name, 'tools', definition.tools) as readonly Tool[];
  const bundles = arrayOf(name, 'use', definition.use) as readonly Middleware[];
  bundles.forEach((bundle, index) => {
    if (!isObject(bundle) || typeof bundle.name !== 'string' || typeof bundle.setup !== 'function')
      throw invalidDefinition(name, `use[${index}]`, 'must be a bundle { name, setup }', bundle);
  });
  const setup: unknown = definition.setup;
  if (setup !== undefined && typeof setup !== 'function')
    throw invalidDefinition(name, 'setup', 'must be a function (registrar) => void', setup);
  const bundleSetups = bundles.map((bundle) => bundle.setup.bind(bundle));
  return Object.freeze({
    name,
    setup(registrar: Registrar): void {
      for (const { target, handler, options } of compiled) registrar.add(target, handler as never, options);
      for (const tool of tools) registrar.provide(ToolsKey, tool);
      for (const bundleSetup of bundleSetups) bundleSetup(registrar);
      if (setup !== undefined) (setup as (registrar: Registrar) => void)(registrar);
    },
  });
}

/** The registrations of one stage key, checked. */
function compileStage(name: string, key: string, stage: AnyStage, hooks: unknown): Compiled[] {
  if (hooks === undefined) return [];
  if (!isObject(hooks) || Array.isArray(hooks)) throw invalidDefinition(name, key, 'must be an object { input?, wrap?, output? }', hooks);
  for (const phase of Object.keys(hooks)) {
    if (!(PHASES as readonly string[]).includes(phase))
      throw invalidDefinition(
        name,
        `${key}.${phase}`,
        'is not a phase (use input, wrap or output)',
        (hooks as Record<string, unknown>)[phase],
      );
  }
  const compiled: Compiled[] = [];
  for (const phase of PHASES) {
    const hook = (hooks as Record<string, unknown>)[phase];
    if (hook === undefined) continue;
    const target = phase === 'input' ? stage.Input : phase === 'wrap' ? stage.Wrap : stage.Output;
    compiled.push({ target, ...compileHook(name, `${name}.${key}.${phase}`, `${key}.${phase}`, hook) });
  }
  return compiled;
}

/** A hook's handler and its options: the derived id and name, then what the hook object gives. */
function compileHook(name: string, id: string, path: string, hook: unknown): { handler: unknown; options: AddOptions } {
  if (typeof hook === 'function') return { handler: hook, options: { id, name: id } };
  if (!isObject(hook) || Array.isArray(hook) || typeof (hook as { handler?: unknown }).handler !== 'function')
    throw invalidDefinition(
      name,
      path,
      'must be a handler, or an object { handler, id?, name?, order?, before?, after?, next?, replace? }',
      hook,
    );
  const given = hook as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!HOOK_KEYS.includes(key))
      throw invalidDefinition(name, `${path}.${key}`, `is not an option of a hook (use ${HOOK_KEYS.join(', ')})`, given[key]);
  }
  const { handler, ...options } = given;
  // A hook's own id, when it gives one, is the name it goes by too; a malformed one is left for `use` to refuse.
  const ownId = options.id === undefined ? id : options.id;
  return { handler, options: { name: typeof ownId === 'string' ? ownId : id, ...options, id: ownId } as AddOptions };
}

/** An optional array of the definition, copied. */
function arrayOf(name: string, path: string, value: unknown): readonly unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalidDefinition(name, path, 'must be an array', value);
  return [...(value as unknown[])];
}
