/**
 * What the walks over caller values (the copy at entry, the JSON form of a
 * tool's value) share: how a part of a value is named, how deep a value may
 * be nested, the texts of the problems they find, and the text a thrown
 * value is shown as.
 */
import { isObject } from '../../util/is-object';

/** Arrays and objects nested deeper than this are refused, so no walk recurses without bound. */
export const MAX_DEPTH = 1000;

/** One step from a value to a part of it: an array index or an object key. */
export type PathStep = string | number;

/** Paths longer than this show their first and last {@link PATH_END} steps around `…`. */
const LONGEST_PATH = 20;
const PATH_END = 10;

/**
 * The path of a part: the root's name, then `[index]` for an array element,
 * `.key` for an identifier key and `["key"]` (a JSON string) for any other key.
 *
 * @example
 * ```ts
 * pathText('input', [0, 'content', 1, 'my key']); // 'input[0].content[1]["my key"]'
 * ```
 */
export function pathText(root: string, steps: readonly PathStep[], length = steps.length): string {
  if (length > LONGEST_PATH) {
    return `${pathText(root, steps, PATH_END)}…${stepsText(steps, length - PATH_END, length)}`;
  }
  return root + stepsText(steps, 0, length);
}

function stepsText(steps: readonly PathStep[], from: number, to: number): string {
  let text = '';
  for (let index = from; index < to; index++) {
    const step = steps[index] as PathStep;
    // An index never reads as an identifier, so it shows as `[index]`, its JSON text.
    text += /^[A-Za-z_$][\w$]*$/.test(String(step)) ? `.${step}` : `[${JSON.stringify(step)}]`;
  }
  return text;
}

/** Why a walk stopped: the problem naming the part, and the value thrown when reading it threw. */
export class WalkFailure {
  constructor(
    readonly problem: string,
    readonly cause?: unknown,
  ) {}
}

/** The state of one walk over a value (a copy, a JSON conversion). */
export interface Walk {
  /** What the value is called in a problem's path. */
  readonly root: string;
  /** The path to the part being walked. */
  readonly steps: PathStep[];
  /** The parts being walked, outermost first (the part at depth d is `open[d]`), to find cycles. */
  readonly open: object[];
  /** How many arrays and objects the walk has entered. */
  visits: number;
  /** Parts walked, so a part met twice is walked once; kept only past {@link REMEMBER_AFTER} visits. */
  done: Map<object, unknown> | undefined;
}

/**
 * Small values (a message) are walked without remembering each part; past
 * this many parts, walked parts are remembered, so a value that shares parts
 * (`[b, b]`, `b = [c, c]`, ...) costs its distinct parts, not its paths.
 */
const REMEMBER_AFTER = 256;

/** A new walk over the value called `root`. */
export function startWalk(root: string): Walk {
  return { root, steps: [], open: [], visits: 0, done: undefined };
}

/**
 * Enters an array or object: refuses a cycle and too deep a nesting, returns
 * what `walkPart` made of a part met before (once parts are remembered), else
 * what `walkPart` makes of it now. A read that throws inside `walkPart` is
 * turned into a {@link WalkFailure} naming the part.
 *
 * @throws WalkFailure for a cycle, too deep a nesting or a read that threw.
 */
export function enterPart(value: object, walk: Walk, walkPart: (value: object, walk: Walk) => unknown): unknown {
  const { root, steps, open } = walk;
  const ancestor = open.indexOf(value);
  if (ancestor !== -1) throw new WalkFailure(cycleProblem(root, steps, ancestor));
  if (walk.done?.has(value) === true) return walk.done.get(value);
  if (steps.length >= MAX_DEPTH) throw new WalkFailure(depthProblem(root, steps));
  if (++walk.visits > REMEMBER_AFTER) walk.done ??= new Map();
  open.push(value);
  let result: unknown;
  try {
    result = walkPart(value, walk);
  } catch (error) {
    if (error instanceof WalkFailure) throw error;
    throw new WalkFailure(readProblem(root, steps, error), error);
  }
  open.pop();
  walk.done?.set(value, result);
  return result;
}

/** The problem of a part that contains one of its ancestors. */
export function cycleProblem(root: string, steps: readonly PathStep[], ancestorDepth: number): string {
  return `${pathText(root, steps)} refers back to ${pathText(root, steps, ancestorDepth)} (a cycle)`;
}

/** The problem of a part nested too deep. */
export function depthProblem(root: string, steps: readonly PathStep[]): string {
  return `${pathText(root, steps)} is nested deeper than ${MAX_DEPTH} levels`;
}

/** The problem of a part whose reading threw. */
export function readProblem(root: string, steps: readonly PathStep[], thrown: unknown): string {
  return `reading ${pathText(root, steps)} threw: ${thrownText(thrown)}`;
}

/**
 * The text a thrown value is shown as: its `message` when that reads as a
 * string (an Error, from any realm), else `String(value)`, else
 * `(no readable message)` (an object without a prototype, an Error whose
 * `message` getter throws). Never throws.
 *
 * @example
 * ```ts
 * thrownText(new Error('disk full')); // 'disk full'
 * thrownText(Object.create(null)); // '(no readable message)'
 * ```
 */
export function thrownText(value: unknown): string {
  if (isObject(value) || typeof value === 'function') {
    try {
      const message = (value as { message?: unknown }).message;
      if (typeof message === 'string') return message;
    } catch {
      // An unreadable message: String() may still describe the value.
    }
  }
  try {
    return String(value);
  } catch {
    return '(no readable message)';
  }
}
