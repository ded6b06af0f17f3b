/**
 * A call of one of our iterators may call another's synchronously (an invoke
 * pulls its terminal, which pulls an invoke of its own, and so on down a chain
 * of re-entrant invokes). MW-068 bounds how many such calls run on one stack:
 * past 64, a call goes on from a promise job of its own, on an empty stack,
 * with the same answers in the same order. These tests drive a chain of
 * iterators each of which calls the next one from within its own call, and
 * log which calls ran before the first call returned to its caller.
 */
import { describe, expect, it } from 'vitest';
import { SerialAsyncGenerator, type Answer } from '../../../src/core/fast-path/serial-async-generator';

/** How a link calls the link under it. */
type Via = 'next' | 'nextInto';

/**
 * One link of a chain: each call logs its level, then calls the link under it the same way and answers with its
 * answer; the last link answers a pull with its own level, a `return()` with the end, and a `throw()` with the error.
 */
class Link extends SerialAsyncGenerator<number> {
  constructor(
    private readonly level: number,
    private readonly under: Link | undefined,
    private readonly via: Via,
    private readonly log: string[],
  ) {
    super();
  }

  protected pull(): Promise<Answer<number>> {
    this.log.push(`pull ${this.level}`);
    const under = this.under;
    let answer: Promise<Answer<number>>;
    if (under === undefined) answer = Promise.resolve({ value: this.level, done: false });
    else if (this.via === 'next') answer = under.next();
    else answer = under.nextInto((inner) => inner, reject);
    return answer.then((inner) => {
      this.outstanding--;
      return inner;
    });
  }

  protected override tryDirectPull(): Promise<unknown> {
    return this.deliverDirect(this.pull()) as Promise<unknown>;
  }

  protected stop(rethrow: boolean, error: unknown): Promise<Answer<number>> {
    this.log.push(`${rethrow ? 'throw' : 'return'} ${this.level}`);
    const under = this.under;
    let answer: Promise<Answer<number>>;
    if (under !== undefined) answer = rethrow ? under.throw(error) : under.return(error);
    else answer = rethrow ? Promise.reject(error) : Promise.resolve({ value: undefined, done: true });
    return answer.then(
      (inner) => {
        this.outstanding--;
        return inner;
      },
      (failure: unknown) => {
        this.outstanding--;
        throw failure;
      },
    );
  }
}

function reject(error: unknown): never {
  throw error;
}

/** A chain of `length` links, level 1 on top; `log` records every call each link runs. */
function chain(length: number, via: Via, log: string[]): Link {
  let link: Link | undefined;
  for (let level = length; level >= 1; level--) link = new Link(level, link, via, log);
  return link as Link;
}

/** `what` followed by the levels `from` to `to`: `levels('pull', 1, 3)` is `['pull 1', 'pull 2', 'pull 3']`. */
function levels(what: string, from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, index) => `${what} ${from + index}`);
}

describe('SerialAsyncGenerator', () => {
  describe('calls nested in one another, 100 deep', () => {
    for (const via of ['next', 'nextInto'] as const) {
      it(`runs the first 64 pulls on the caller's stack and the rest later, with the same answer (by ${via})`, async () => {
        const log: string[] = [];
        const top = chain(100, via, log);
        const answer = via === 'next' ? top.next() : top.nextInto((inner) => inner, reject);
        log.push('returned');
        expect({ answer: await answer, log }).toEqual({
          answer: { value: 100, done: false },
          log: [...levels('pull', 1, 64), 'returned', ...levels('pull', 65, 100)],
        });
      });
    }

    it("counts from zero again on the next stack: a second chain again runs 64 pulls on its caller's stack", async () => {
      const first: string[] = [];
      await chain(100, 'next', first).next();
      const log: string[] = [];
      const answer = chain(100, 'nextInto', log).nextInto((inner) => inner, reject);
      log.push('returned');
      expect({ answer: await answer, first, log }).toEqual({
        answer: { value: 100, done: false },
        first: levels('pull', 1, 100),
        log: [...levels('pull', 1, 64), 'returned', ...levels('pull', 65, 100)],
      });
    });

    it("runs the first 64 return() calls on the caller's stack and the rest later, with the same answer", async () => {
      const log: string[] = [];
      const answer = chain(100, 'next', log).return('done');
      log.push('returned');
      expect({ answer: await answer, log }).toEqual({
        answer: { value: undefined, done: true },
        log: [...levels('return', 1, 64), 'returned', ...levels('return', 65, 100)],
      });
    });

    it("runs the first 64 throw() calls on the caller's stack and the rest later, with the same failure", async () => {
      const log: string[] = [];
      const failure = new Error('stop');
      const answer = chain(100, 'next', log).throw(failure);
      log.push('returned');
      expect({
        failure: await answer.then(
          () => 'answered',
          (error: unknown) => error,
        ),
        log,
      }).toEqual({
        failure,
        log: [...levels('throw', 1, 64), 'returned', ...levels('throw', 65, 100)],
      });
    });
  });
});
