/**
 * Tools that bundles contribute (MW-160): the key they provide them under,
 * and the tool list of a run, the agent's own tools followed by every tool
 * contributed in the scope it runs in.
 */
import { createContributionKey, type Contribution, type ContributionKey } from '../../core/index';
import type { MiddlewareRegistry } from '../../core/index';

import { frozenCopy } from '../values/freeze';
import { ExecuteToolStage } from '../stages';
import type { Tool, ToolSpec } from '../types/tool';
import { notATool, ownToolProvided } from '../errors';
import { isObject } from '../../util/is-object';
import { isNonEmptyString } from '../values/value-shapes';

/** The name a contributed tool is provided under; checked here, so a malformed tool fails its bundle's `setup`. */
function toolName(tool: Tool): string {
  const name = isObject(tool) && isObject(tool.spec) ? (tool.spec.name as unknown) : undefined;
  const run = isObject(tool) ? (tool as { run?: unknown }).run : undefined;
  if (!isNonEmptyString(name) || (run !== undefined && typeof run !== 'function')) {
    throw notATool(tool);
  }
  return name;
}

/**
 * The key bundles provide tools under: `registrar.provide(ToolsKey, tool)`.
 * A tool's id is its name, so two bundles in one chain of scopes cannot both
 * provide a tool of one name; `explain(ExecuteToolStage)` lists them.
 *
 * @example
 * ```ts
 * registry.use({ name: 'clock', setup: (registrar) => void registrar.provide(ToolsKey, clock) });
 * ```
 */
export const ToolsKey: ContributionKey<Tool> = createContributionKey<Tool>('staged-middleware.agent.tools', {
  identify: toolName,
  stage: ExecuteToolStage,
});

/** A run's tools: by name, and their frozen specs in order, the agent's own first. */
export interface ResolvedTools {
  /** Every tool, in order (frozen). */
  readonly tools: readonly Tool[];
  /** The tools by name. */
  readonly byName: ReadonlyMap<string, Tool>;
  /** Frozen copies of their specs, in order (frozen). */
  readonly specs: readonly ToolSpec[];
}

/** Options of {@link resolveTools}. */
export interface ResolveToolsOptions {
  /** Take only contributions of registries this many levels up from the one asked (0: its own). Default: every level. */
  readonly maxDepth?: number;
}

/** Frozen copies of specs, one per tool object, so a tool seen by many runs is copied once. */
const specCopies = new WeakMap<Tool, ToolSpec>();

function specOf(tool: Tool): ToolSpec {
  let spec = specCopies.get(tool);
  if (spec === undefined) {
    spec = frozenCopy(tool.spec, `tool "${tool.spec.name}".spec`);
    specCopies.set(tool, spec);
  }
  return spec;
}

/**
 * The tool list of a run: `own` followed by the tools bundles contributed in
 * `registry`'s scope (MW-160). For a framework's own loop as for the agent.
 *
 * @throws MiddlewareError `ERR_DUPLICATE_ID` (stage `executeTool`, phase `register`) when a contributed tool has the
 *   name of one of `own`, naming the bundle; the errors of `registry.contributions()`.
 * @example
 * ```ts
 * const { byName, specs } = resolveTools(registry, tools);
 * const context = createModelContext({ model, messages: [], systemPrompt, toolSpecs: specs, invocationState: {} });
 * const lookup = byName.get('weather'); // for ExecuteToolStage's context.tool
 * ```
 */
export function resolveTools(registry: MiddlewareRegistry, own: readonly Tool[], options: ResolveToolsOptions = {}): ResolvedTools {
  return toolsFrom(own, own.map(specOf), registry.contributions(ToolsKey), options.maxDepth);
}

/**
 * The tool list of `own` (with `ownSpecs`, the copies their specs got when
 * they entered the agent) and `contributions` (those deeper than `maxDepth` left out).
 */
export function toolsFrom(
  own: readonly Tool[],
  ownSpecs: readonly ToolSpec[],
  contributions: readonly Contribution<Tool>[],
  maxDepth = Infinity,
): ResolvedTools {
  const byName = new Map<string, Tool>();
  const tools: Tool[] = [...own];
  const specs: ToolSpec[] = [...ownSpecs];
  own.forEach((tool, index) => byName.set((ownSpecs[index] as ToolSpec).name, tool));
  for (const contribution of contributions) {
    if (contribution.depth > maxDepth) continue;
    const name = contribution.id as string;
    if (byName.has(name)) throw ownToolProvided(name, contribution.bundle, contribution.depth > 0);
    byName.set(name, contribution.value);
    tools.push(contribution.value);
    specs.push(specOf(contribution.value));
  }
  return { tools: Object.freeze(tools), byName, specs: Object.freeze(specs) };
}
