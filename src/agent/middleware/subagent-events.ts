/**
 * A sub-agent's events on its parent's stream (MW-339). The child runs
 * inside the tool call, while the ExecuteToolStage chain waits for the
 * call's result, so its events are queued as they come and the Wrap handler
 * yields them between its pulls of the inner chain, each before the inner
 * event that follows it.
 */
import type { AgentEvent, AgentResultEvent } from '../types/stages';

/** The child's events on their way to the parent's stream. */
export class EventRelay {
  private readonly queued: AgentEvent[] = [];
  private wake: (() => void) | undefined;

  /** Queues one event of the child's run. */
  push(event: AgentEvent): void {
    this.queued.push(event);
    this.wake?.();
  }

  /**
   * Every event of `inner`, and every queued event, wrapped by `wrap`, as
   * soon as it is queued. Closing the merge closes `inner`.
   */
  async *merge<TEvent>(inner: AsyncIterable<TEvent>, wrap: (event: AgentEvent) => TEvent): AsyncGenerator<TEvent, void, undefined> {
    const iterator = inner[Symbol.asyncIterator]();
    // A pull that settles as a value, so a failure waits until the events queued before it are yielded.
    let pull: Promise<{ readonly result: IteratorResult<TEvent> } | { readonly error: unknown }> | undefined;
    try {
      for (;;) {
        pull ??= iterator.next().then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        );
        const arrived =
          this.queued.length > 0
            ? Promise.resolve(undefined)
            : new Promise<undefined>((resolve) => {
                this.wake = () => {
                  resolve(undefined);
                };
              });
        const step = await Promise.race([pull, arrived]);
        this.wake = undefined;
        while (this.queued.length > 0) yield wrap(this.queued.shift() as AgentEvent);
        if (step === undefined) continue;
        pull = undefined;
        if ('error' in step) throw step.error;
        if (step.result.done === true) return;
        yield step.result.value;
      }
    } finally {
      this.wake = undefined;
      await iterator.return?.();
    }
  }
}

/** Runs a child's stream to its end, queuing each event on `relay`, and returns its last event, the agent result. */
export async function relayRun(events: AsyncIterable<AgentEvent>, relay: EventRelay): Promise<AgentResultEvent> {
  let last: AgentEvent | undefined;
  for await (const event of events) {
    relay.push(event);
    last = event;
  }
  return last as AgentResultEvent;
}
