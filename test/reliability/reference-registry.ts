/**
 * Reference model of registration and ordering, written from the rules
 * (SPEC sections 1–3 and the registry rules), not from the library's code:
 * plain arrays, quadratic loops, no caching.
 *
 * Rules modelled:
 * - levels nest: parent registry ⊃ child registry ⊃ per-invoke handlers;
 * - within one level and phase: `before`/`after` constraints first, then
 *   `order` (lower = outer/earlier), then registration order; among the
 *   handlers whose constraints are met, the lowest (order, sequence) goes next;
 * - an id registered twice fails with ERR_DUPLICATE_ID unless the later one
 *   says `replace: true`; a replacement takes the replaced one's sequence
 *   number and, unless given, its order; across levels the deepest replacement
 *   wins and sits where the shallowest one was (same phase) or at its own
 *   level (another phase), hiding every other registration of that id;
 * - a constraint cycle fails with ERR_ORDER_CYCLE (at add: nothing registered);
 * - a constraint on a same-phase id of another level must agree with the
 *   nesting, else ERR_ORDER_CONFLICT; a constraint on an id registered nowhere
 *   is ignored with a WARN_UNKNOWN_ID warning.
 */
import type { Phase } from '../../src/core/index';
import type { NextPolicy } from '../../src/core/types';

/** An error raised by the reference engine; compared with the library's by code. */
export class ReferenceEngineError extends Error {
  constructor(
    readonly code: string,
    override readonly cause?: unknown,
  ) {
    super(code);
  }
}

/** One registration as the reference keeps it. */
export interface ReferenceRegistration {
  readonly sequence: number;
  readonly phase: Phase;
  readonly handler: (...args: never[]) => unknown;
  readonly name: string;
  readonly id: string | undefined;
  readonly order: number;
  readonly orderGiven: boolean;
  readonly before: readonly string[];
  readonly after: readonly string[];
  readonly next: NextPolicy;
  readonly replace: boolean;
}

/** The chain the reference engine runs. */
export interface ReferenceChain {
  readonly input: readonly ReferenceRegistration[];
  readonly wrap: readonly ReferenceRegistration[];
  readonly output: readonly ReferenceRegistration[];
}

let sequenceClock = 0;

/** A new registration with the next sequence number. */
export function referenceRegistration(
  fields: Omit<ReferenceRegistration, 'sequence' | 'orderGiven' | 'order'> & { order: number | undefined },
): ReferenceRegistration {
  return { ...fields, sequence: ++sequenceClock, order: fields.order ?? 0, orderGiven: fields.order !== undefined };
}

/** Orders one level's registrations of one phase, or throws ERR_ORDER_CYCLE. */
export function referenceSort(items: readonly ReferenceRegistration[]): ReferenceRegistration[] {
  const mustPrecede = (first: ReferenceRegistration, second: ReferenceRegistration): boolean =>
    first !== second &&
    ((second.id !== undefined && first.before.includes(second.id)) || (first.id !== undefined && second.after.includes(first.id)));
  const remaining = [...items];
  const sorted: ReferenceRegistration[] = [];
  while (remaining.length > 0) {
    const ready = remaining.filter((candidate) => !remaining.some((other) => mustPrecede(other, candidate)));
    if (ready.length === 0) throw new ReferenceEngineError('ERR_ORDER_CYCLE');
    ready.sort((left, right) => left.order - right.order || left.sequence - right.sequence);
    const chosen = ready[0] as ReferenceRegistration;
    sorted.push(chosen);
    remaining.splice(remaining.indexOf(chosen), 1);
  }
  return sorted;
}

/** A registry level of the reference: its registrations in the order they were added. */
export class ReferenceScope {
  registrations: ReferenceRegistration[] = [];

  constructor(readonly parent: ReferenceScope | undefined) {}

  /** `add`: returns normally or throws the error code the library must throw. */
  add(registration: ReferenceRegistration): void {
    let stored = registration;
    const existing = registration.id === undefined ? undefined : this.registrations.find((other) => other.id === registration.id);
    if (existing !== undefined) {
      if (!registration.replace) throw new ReferenceEngineError('ERR_DUPLICATE_ID');
      stored = { ...registration, sequence: existing.sequence, order: registration.orderGiven ? registration.order : existing.order };
    } else if (registration.id !== undefined && !registration.replace && this.parent?.has(registration.id) === true) {
      throw new ReferenceEngineError('ERR_DUPLICATE_ID');
    }
    const samePhase = this.registrations.filter((other) => other.phase === stored.phase && other !== existing);
    referenceSort([...samePhase, stored]);
    this.registrations = [...this.registrations.filter((other) => other !== existing), stored];
  }

  has(id: string): boolean {
    return this.registrations.some((registration) => registration.id === id) || (this.parent?.has(id) ?? false);
  }
}

/**
 * Resolves the chain from the levels, shallowest first (parent, child, then
 * the per-invoke list when it is not empty). Warnings are pushed as
 * `handler>id`.
 */
export function referenceResolve(levels: readonly (readonly ReferenceRegistration[])[], warnings: string[]): ReferenceChain {
  const lastLevel = levels.length - 1;
  // Per-invoke handlers are one list given at once: a repeated id there is an error.
  const perInvoke = levels[lastLevel] as readonly ReferenceRegistration[];
  const perInvokeIds = perInvoke.flatMap((registration) => (registration.id === undefined ? [] : [registration.id]));
  if (levels.length > 2 && new Set(perInvokeIds).size !== perInvokeIds.length) throw new ReferenceEngineError('ERR_DUPLICATE_ID');

  // Which registration of each id is effective, and where it sits.
  const placed: { registration: ReferenceRegistration; level: number }[] = [];
  const hidden = new Set<ReferenceRegistration>();
  const ids = new Set(levels.flatMap((level) => level.flatMap((registration) => (registration.id === undefined ? [] : [registration.id]))));
  const substitutes = new Map<ReferenceRegistration, ReferenceRegistration>();
  const ownLevel: { registration: ReferenceRegistration; level: number }[] = [];
  for (const id of ids) {
    const holders = levels.flatMap((level, index) =>
      level.filter((registration) => registration.id === id).map((registration) => ({ registration, level: index })),
    );
    if (holders.length < 2) continue;
    for (const later of holders.slice(1)) if (!later.registration.replace) throw new ReferenceEngineError('ERR_DUPLICATE_ID');
    const first = holders[0] as { registration: ReferenceRegistration; level: number };
    const winner = holders[holders.length - 1] as { registration: ReferenceRegistration; level: number };
    for (const holder of holders) hidden.add(holder.registration);
    if (winner.registration.phase === first.registration.phase) {
      substitutes.set(first.registration, {
        ...winner.registration,
        sequence: first.registration.sequence,
        order: winner.registration.orderGiven ? winner.registration.order : first.registration.order,
      });
    } else {
      ownLevel.push(winner);
    }
  }
  levels.forEach((level, index) => {
    for (const registration of level) {
      const substitute = substitutes.get(registration);
      if (substitute !== undefined) placed.push({ registration: substitute, level: index });
      else if (!hidden.has(registration)) placed.push({ registration, level: index });
    }
    for (const winner of ownLevel) if (winner.level === index) placed.push(winner);
  });

  const levelOf = new Map<string, { registration: ReferenceRegistration; level: number }>();
  for (const entry of placed) if (entry.registration.id !== undefined) levelOf.set(entry.registration.id, entry);
  const chain = { input: [] as ReferenceRegistration[], wrap: [] as ReferenceRegistration[], output: [] as ReferenceRegistration[] };
  for (const phase of ['input', 'wrap', 'output'] as const) {
    levels.forEach((_level, index) => {
      const sorted = referenceSort(
        placed.filter((entry) => entry.level === index && entry.registration.phase === phase).map((entry) => entry.registration),
      );
      for (const registration of sorted) {
        const check = (id: string, outside: boolean): void => {
          const found = levelOf.get(id);
          if (found === undefined) {
            warnings.push(`${registration.name}>${id}`);
            return;
          }
          if (found.registration.phase !== phase || found.level === index) return;
          if (outside ? index > found.level : index < found.level) throw new ReferenceEngineError('ERR_ORDER_CONFLICT');
        };
        for (const id of registration.before) check(id, true);
        for (const id of registration.after) check(id, false);
        chain[phase].push(registration);
      }
    });
  }
  return chain;
}
