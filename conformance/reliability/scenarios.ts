/**
 * The reliability scenarios of this library (spec/README.md, `"kind":
 * "reliability"`): what a port provides as functions of a case's parameters.
 * Three need help from the runtime, which the host gives: forcing a garbage
 * collection (`abandoned`), loading a second copy of the library
 * (`second-copy`) and loading it in a realm without `process`
 * (`bare-realm`); without it they are not claimed.
 */
import type { ReliabilityCase } from '../cases/reliability-case';
import { concurrentInvokes, concurrentWriteback, abandoned } from './concurrency-scenarios';
import { deepChain, guardThrows, nestedInvokes, queuedCalls, throwWhenCalled } from './consumer-scenarios';
import { handedOutValues } from './handed-out-values';
import type { Json } from '../cases/case-base';
import type { Observed } from './scenario-tools';
import { secondCopy, type LibraryCopy } from './second-copy';

/** What the runtime provides to the scenarios that need more than the library. */
export interface LibraryHost {
  /** Forces a full garbage collection and lets finalisation callbacks run; default: `globalThis.gc` a few times, when the runtime exposes it. */
  readonly collectGarbage?: (() => Promise<void>) | undefined;
  /** Loads two independent copies of the library in this realm, the first one first (the ESM and CommonJS builds, say). */
  readonly loadCopies?: (() => Promise<{ readonly first: LibraryCopy; readonly second: LibraryCopy }>) | undefined;
  /**
   * Loads the library in a new realm with the standard and web globals only (no `process`), runs `bareRealm`
   * (exported by this entry point; its source text may be evaluated there) with that realm's copy, and returns its
   * observation with `globals` added: the keys loading and running added to the realm's global object, as strings, sorted.
   */
  readonly runInBareRealm?: (() => Promise<Json>) | undefined;
}

/** The scenario names, in the order of the case format. */
const SCENARIOS = [
  'queued-calls',
  'guard-throws',
  'throw-when-called',
  'concurrent-invokes',
  'concurrent-writeback',
  'abandoned',
  'deep-chain',
  'nested-invokes',
  'second-copy',
  'handed-out-values',
  'bare-realm',
] as const;

/** The scenarios this library provides with `host`. */
export function providedScenarios(host: LibraryHost): string[] {
  const provided: Readonly<Record<string, boolean>> = {
    abandoned: garbageCollector(host) !== undefined,
    'second-copy': host.loadCopies !== undefined,
    'bare-realm': host.runInBareRealm !== undefined,
  };
  return SCENARIOS.filter((scenario) => provided[scenario] ?? true);
}

/** Runs one reliability case and returns what it observed, shaped like its `expect`. */
export async function runScenario(testCase: ReliabilityCase, host: LibraryHost): Promise<Observed> {
  switch (testCase.scenario) {
    case 'queued-calls':
      return queuedCalls(testCase);
    case 'guard-throws':
      return guardThrows(testCase);
    case 'throw-when-called':
      return throwWhenCalled(testCase);
    case 'concurrent-invokes':
      return concurrentInvokes(testCase);
    case 'concurrent-writeback':
      return concurrentWriteback(testCase);
    case 'abandoned':
      return abandoned(testCase, required(garbageCollector(host), 'a way to force a garbage collection'));
    case 'deep-chain':
      return deepChain(testCase);
    case 'nested-invokes':
      return nestedInvokes(testCase);
    case 'second-copy':
      return secondCopy(testCase, await required(host.loadCopies, 'a way to load a second copy of the library')());
    case 'bare-realm':
      return required(host.runInBareRealm, 'a realm without process to load the library in')();
    default:
      return handedOutValues();
  }
}

/** How this runtime forces a collection: the host's way, else `globalThis.gc` when exposed. */
function garbageCollector(host: LibraryHost): (() => Promise<void>) | undefined {
  if (host.collectGarbage !== undefined) return host.collectGarbage;
  const gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') return undefined;
  return async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      (gc as () => void)();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  };
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`This scenario needs ${what}, which the host did not provide.`);
  return value;
}
