/**
 * What an implementation's `hello` claims, and whether it covers a case: the
 * kinds it runs, the built-in middleware (whole, or part of one), the
 * reliability scenarios and the capabilities of its agent loop. A case it
 * does not cover is reported as not claimed, never as passed.
 */
import type { AgentCase } from '../cases/agent-case';
import type { ChainCase } from '../cases/chain-case';
import type { Operation } from '../cases/chain-operations';
import type { ReliabilityCase } from '../cases/reliability-case';
import type { BuiltinClaim, Claims } from '../protocol/messages';

/** A case of a known kind, parsed. */
export type ParsedCase =
  | { readonly kind: 'chain'; readonly value: ChainCase }
  | { readonly kind: 'reliability'; readonly value: ReliabilityCase }
  | { readonly kind: 'agent'; readonly value: AgentCase };

/** `*` in the pattern matches any text. */
export function matchesPattern(pattern: string, id: string): boolean {
  const parts = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`).test(id);
}

/** Why the implementation does not claim the case, or undefined when it does. */
export function unclaimed(testCase: ParsedCase, claims: Claims): string | undefined {
  if (!claims.kinds.includes(testCase.kind)) return `the implementation does not run ${testCase.kind} cases`;
  if (testCase.kind === 'chain') return unclaimedBuiltins(testCase.value, claims.builtins ?? []);
  if (testCase.kind === 'reliability')
    return (claims.scenarios ?? []).includes(testCase.value.scenario)
      ? undefined
      : `needs the reliability scenario ${testCase.value.scenario}`;
  const missing = testCase.value.needs.filter((capability) => !(claims.capabilities ?? []).includes(capability));
  return missing.length === 0 ? undefined : `needs the agent loop capabilities ${missing.join(', ')}`;
}

/** Why the built-ins claimed do not cover the chain case's `use` operations, or undefined when they do. */
function unclaimedBuiltins(testCase: ChainCase, claimed: readonly (string | BuiltinClaim)[]): string | undefined {
  const uses = [...testCase.registry, ...(testCase.consumer.afterInvoke ?? [])].filter(
    (operation): operation is Extract<Operation, { op: 'use' }> => operation.op === 'use',
  );
  const missing = [...new Set(uses.map((use) => use.builtin))].filter(
    (name) => !claimed.some((claim) => (typeof claim === 'string' ? claim : claim.name) === name),
  );
  if (missing.length > 0) return `needs the built-in middleware ${missing.join(', ')}`;
  for (const use of uses) {
    // A whole claim of a built-in covers every use of it, whatever a part claim says besides.
    if (claimed.includes(use.builtin)) continue;
    const parts = claimed.filter((claim): claim is BuiltinClaim => typeof claim !== 'string' && claim.name === use.builtin);
    const reasons = parts.map((part) => uncoveredPart(testCase.id, use, part));
    if (reasons.every((reason) => reason !== undefined)) return `claims only part of the built-in ${use.builtin}: ${reasons[0] as string}`;
  }
  return undefined;
}

/** Why one part claim does not cover a `use` of its built-in in the case `id`, or undefined when it does. */
function uncoveredPart(id: string, use: Extract<Operation, { op: 'use' }>, part: BuiltinClaim): string | undefined {
  if (part.cases !== undefined && !part.cases.some((pattern) => matchesPattern(pattern, id))) return 'the case is not among its cases';
  if (part.options === undefined) return undefined;
  const allowed = part.options;
  const outside = Object.entries(use.options)
    .filter(
      ([key, value]) => key !== 'name' && !allowed.includes(key) && !(typeof value === 'string' && allowed.includes(`${key}=${value}`)),
    )
    .map(([key, value]) => (typeof value === 'string' && allowed.some((entry) => entry.startsWith(`${key}=`)) ? `${key}=${value}` : key));
  return outside.length === 0 ? undefined : `needs the option${outside.length === 1 ? '' : 's'} ${outside.join(', ')}`;
}
