/**
 * `nextInto` is how an iterator of ours pulls another of ours (see
 * `pull-through.test.ts` for a stack of them); like `next()`, it answers the
 * calls one at a time, in call order, whichever way each was made.
 */
import { describe, expect, it } from 'vitest';
import { SerialAsyncGenerator, type Answer } from '../../../src/core/fast-path/serial-async-generator';

/** An iterator of ours that logs when each pull starts (and how it was asked for) and when it is answered. */
class Probe extends SerialAsyncGenerator<number> {
  private pulls = 0;

  constructor(private readonly log: string[]) {
    super();
  }

  protected pull(): Promise<Answer<number>> {
    return this.answerSoon('next');
  }

  protected override tryDirectPull(): Promise<unknown> {
    return this.deliverDirect(this.answerSoon('nextInto')) as Promise<unknown>;
  }

  protected stop(): Promise<Answer<number>> {
    this.outstanding--;
    return Promise.resolve({ value: undefined, done: true });
  }

  private answerSoon(how: string): Promise<Answer<number>> {
    const pull = ++this.pulls;
    this.log.push(`pull ${pull} by ${how}`);
    return Promise.resolve().then(() => {
      this.log.push(`answer ${pull}`);
      this.outstanding--;
      return { value: pull, done: false };
    });
  }
}

describe('nextInto', () => {
  it('waits for a call made before it, as next() does, and a call made after it waits for it', async () => {
    const log: string[] = [];
    const probe = new Probe(log);
    const values = (answer: Answer<number>): unknown => answer.value;
    const rethrow = (error: unknown): never => {
      throw error;
    };
    const answers = await Promise.all([probe.next().then(values), probe.nextInto(values, rethrow), probe.nextInto(values, rethrow)]);
    const after = await Promise.all([probe.nextInto(values, rethrow), probe.next().then(values)]);
    expect({ answers, after, log }).toEqual({
      answers: [1, 2, 3],
      after: [4, 5],
      log: [
        'pull 1 by next',
        'answer 1',
        'pull 2 by next',
        'answer 2',
        'pull 3 by next',
        'answer 3',
        // With no call pending, the pull goes through; the call after it waits for its answer.
        'pull 4 by nextInto',
        'answer 4',
        'pull 5 by next',
        'answer 5',
      ],
    });
  });
});
