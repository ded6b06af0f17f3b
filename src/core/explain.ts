import type { ChainEntry } from './chain';
import type { Contribution } from './contributions';

/**
 * Renders a resolved chain as a text picture of the onion, outermost first:
 * Input handlers in run order, then Output handlers (outermost first, so the
 * last listed transforms first), then the Wrap layers nested around the terminal.
 *
 * @example
 * ```text
 * stage "invokeModel"
 * ├─ input   1. addDate
 * ├─ output  1. redactEmail  (transforms last)
 * └─ wrap    1. timeline
 *    └─ wrap    2. retry  [next at-most-once]
 *       └─ terminal
 * ```
 */
export function explainChain(stageName: string, entries: readonly ChainEntry[]): string {
  const lines = [`stage "${stageName}"`];
  const flat = entries.filter((entry) => entry.phase !== 'wrap');
  const wrap = entries.filter((entry) => entry.phase === 'wrap');
  const outputCount = flat.filter((entry) => entry.phase === 'output').length;
  for (const entry of flat) {
    const note = entry.phase === 'output' && outputCount > 1 && entry.position === 0 ? '  (transforms last)' : '';
    lines.push(`├─ ${entry.phase.padEnd(7)} ${entry.position + 1}. ${label(entry)}${note}`);
  }
  let indent = '';
  for (const entry of wrap) {
    lines.push(`${indent}└─ wrap    ${entry.position + 1}. ${label(entry)}`);
    indent += '   ';
  }
  lines.push(`${indent}└─ terminal`);
  return lines.join('\n');
}

function label(entry: ChainEntry): string {
  const details: string[] = [];
  if (entry.id !== undefined && entry.id !== entry.name) details.push(`id ${entry.id}`);
  if (entry.order !== 0) details.push(`order ${entry.order}`);
  if (entry.before.length > 0) details.push(`before ${entry.before.join(', ')}`);
  if (entry.after.length > 0) details.push(`after ${entry.after.join(', ')}`);
  if (entry.next !== 'many') details.push(`next ${entry.next}`);
  if (entry.source === 'bundle') details.push(`bundle ${entry.bundle}`);
  if (entry.source === 'scope') details.push(`inherited${entry.bundle === undefined ? '' : ` from bundle ${entry.bundle}`}`);
  if (entry.source === 'invoke') details.push('this invoke only');
  return details.length === 0 ? entry.name : `${entry.name}  [${details.join('; ')}]`;
}

/** The text of `registry.explain()`: the chain, then the contributions in scope of each key shown with the stage (MW-056). */
export function explainStage(
  stageName: string,
  entries: readonly ChainEntry[],
  provided: readonly (readonly [string, readonly Contribution<unknown>[]])[],
): string {
  const lines = [explainChain(stageName, entries)];
  // Only keys with a value in scope are given (`keysShownWith`), so each has lines to add.
  for (const [name, contributions] of provided) lines.push(...explainContributions(name, contributions));
  return lines.join('\n');
}

/**
 * The `explain()` lines of one key's contributions (MW-056): a heading, then
 * one line per contribution, the last one closing the list.
 */
function explainContributions(name: string, entries: readonly Contribution<unknown>[]): string[] {
  const lines = [`provides "${name}"`];
  entries.forEach((entry, index) => {
    const branch = index === entries.length - 1 ? '└─' : '├─';
    const origin = entry.source === 'bundle' ? `bundle ${entry.bundle}` : `inherited from bundle ${entry.bundle}`;
    lines.push(`${branch} ${entry.position + 1}. ${entry.id ?? '(no id)'}  [${origin}]`);
  });
  return lines;
}
