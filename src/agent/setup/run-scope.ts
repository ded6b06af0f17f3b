/**
 * What one run of the reference agent runs with, fixed when it starts: the
 * registry (the agent's, or a child holding the run's own bundles), the tool
 * list (the agent's tools and every tool contributed in scope), the agent
 * view naming them, and the context budgets in scope (MW-160 – MW-163).
 */
import type { Middleware } from '../../core/index';
import type { MiddlewareRegistry } from '../../core/index';
import type { AgentState } from './agent-state';
import { toolsFrom, ToolsKey } from '../tools/agent-tools';
import { ContextBudgetKey, readBudget } from '../loop/context-budget';
import type { ContextBudget } from '../types/stages';
import type { AgentView } from '../types/view';
import type { Tool, ToolSpec } from '../types/tool';
import { NONE } from '../values/freeze';

/** A run's registry, tools, view and budgets. */
export interface RunScope {
  /** Where every stage of the run is invoked. */
  readonly registry: MiddlewareRegistry;
  /** The run's tools by name. */
  readonly tools: ReadonlyMap<string, Tool>;
  /** Their frozen specs, the agent's own first (frozen). */
  readonly toolSpecs: readonly ToolSpec[];
  /** The agent view of every context of the run. */
  readonly view: AgentView;
  /** The context budgets in scope, in contribution order. */
  readonly budgets: readonly ContextBudget[];
}

/**
 * The scope of a run: `bundles` are registered on a new child of the agent's
 * registry (none: the agent's registry itself), then the tool list is resolved.
 *
 * @throws MiddlewareError `ERR_DUPLICATE_ID` for a contributed tool whose name is taken; what a bundle's `setup`
 *   throws, unchanged; the errors of `registry.use`.
 */
export function openRunScope(agent: AgentState, bundles: readonly Middleware[]): RunScope {
  let registry = agent.registry;
  if (bundles.length > 0) {
    registry = agent.registry.child();
    for (const bundle of bundles) registry.use(bundle);
  }
  const contributions = registry.contributions(ToolsKey);
  const budgets = registry.contributions(ContextBudgetKey);
  const read = budgets.length === 0 ? NONE : Object.freeze(budgets.map((budget) => readBudget(budget.value, budget.bundle)));
  // Literals of one shape rather than a spread of a shared part: a spread followed by more properties takes V8's slow path.
  if (contributions.length === 0) return { registry, budgets: read, tools: agent.tools, toolSpecs: agent.toolSpecs, view: agent.view };
  const cached = agent.toolListCache;
  if (cached?.contributions === contributions)
    return { registry, budgets: read, tools: cached.tools, toolSpecs: cached.toolSpecs, view: cached.view };
  // Without inherited tools, only the registry's own contributions count (and the run's bundles, one level deeper).
  const maxDepth = agent.inheritTools ? Infinity : bundles.length > 0 ? 1 : 0;
  const own = [...agent.tools.values()];
  const resolved = toolsFrom(own, agent.toolSpecs, contributions, maxDepth);
  const view: AgentView = Object.freeze({ ...agent.view, tools: resolved.specs });
  agent.toolListCache = { contributions, tools: resolved.byName, toolSpecs: resolved.specs, view };
  return { registry, budgets: read, tools: resolved.byName, toolSpecs: resolved.specs, view };
}
