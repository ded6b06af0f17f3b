import type { CaseKind, Claims } from '../protocol/messages';

/** How one case went. */
export type CaseStatus = 'passed' | 'failed' | 'not-claimed';

/** One thing that differed from what the case expects. */
export interface Difference {
  /** Where: a key of the case's `expect` (`events`, `runs[1].stopReason`, ...), or `error.identity`. */
  readonly key: string;
  /** What the case expects there (undefined: nothing, the key should be absent). */
  readonly expected: unknown;
  /** What was observed there (undefined: nothing was). */
  readonly observed: unknown;
}

/** The outcome of one case. */
export interface CaseOutcome {
  /** The case id. */
  readonly id: string;
  /** The case's kind. */
  readonly kind: string;
  /** The rules the case names. */
  readonly rules: readonly string[];
  /** Passed, failed, or not claimed by the implementation. */
  readonly status: CaseStatus;
  /** Why it was not claimed, or why it could not run (a malformed case, a failed request). */
  readonly reason?: string;
  /** What differed, for a failed case that ran. */
  readonly differences?: readonly Difference[];
}

/** The outcome of one rule over the cases that name it. */
export interface RuleOutcome {
  /** The rule id. */
  readonly rule: string;
  /** Failed when a case naming it failed; else not claimed when one was not claimed; else passed. */
  readonly status: CaseStatus;
  /** Cases naming it that passed. */
  readonly passed: number;
  /** Cases naming it that failed. */
  readonly failed: number;
  /** Cases naming it that were not claimed. */
  readonly notClaimed: number;
}

/** What a conformance run found. */
export interface ConformanceReport {
  /** What the implementation claimed. */
  readonly implementation: Claims;
  /** The filters the run applied (empty when it ran every case). */
  readonly filters: { readonly rules?: readonly string[]; readonly kinds?: readonly CaseKind[]; readonly cases?: readonly string[] };
  /** Every selected case, in the order given. */
  readonly cases: readonly CaseOutcome[];
  /** Every rule the selected cases name, in id order. */
  readonly rules: readonly RuleOutcome[];
  /** Counts of cases by status. */
  readonly summary: { readonly passed: number; readonly failed: number; readonly notClaimed: number };
  /**
   * The conformance the Conformance section of `SPEC.md` defines, for a run
   * of every case (null when filters left some out): `core`, every chain and
   * reliability case naming only rules of sections 1 to 3 passed; `full`, every case passed.
   */
  readonly conformance: { readonly core: boolean; readonly full: boolean } | null;
  /**
   * What keeps conformance from holding, for a run of every case (null when
   * filters left some out): the ids of the cases that failed or were not
   * claimed, in order, among those core conformance needs and among all.
   */
  readonly blockedBy: { readonly core: readonly string[]; readonly full: readonly string[] } | null;
  /**
   * How the agent loop did, for a run of every agent case (an adapter's run
   * included; null when a rule or case filter left some out, or the run had
   * no agent kind).
   */
  readonly agentLoop: AgentLoopVerdict | null;
}

/** How an agent loop did over every agent case. */
export interface AgentLoopVerdict {
  /** Every agent case the loop claims passed. */
  readonly passed: boolean;
  /** How many agent cases there were. */
  readonly cases: number;
  /** The agent cases that failed, in order. */
  readonly failed: readonly string[];
  /** The agent cases not claimed (each one's reason names the capabilities it needs), in order. */
  readonly notClaimed: readonly string[];
}
