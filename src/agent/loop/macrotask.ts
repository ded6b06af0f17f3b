/**
 * Letting the event loop run what is due between two turns of an agent run
 * (MW-142). A model that answers from memory (a cache hit, a scripted or
 * mocked model) settles every `await` of a turn with promise jobs alone, and
 * promise jobs run before any timer or I/O callback: a loop of such turns
 * would keep `AbortSignal.timeout()`, a timed `agent.cancel()` and every other
 * timer from ever running. One macrotask per turn gives them their moment.
 *
 * @packageDocumentation
 */

/** Schedules a callback as a macrotask. */
type Schedule = (callback: () => void) => void;

/** The globals a scheduler may be made of; each is looked for, since runtimes differ in which they have. */
export interface MacrotaskGlobals {
  /** Node.js and Bun. */
  readonly setImmediate?: unknown;
  /** Browsers, workers, Deno, Node.js. */
  readonly MessageChannel?: unknown;
  /** Every JavaScript runtime with an event loop. */
  readonly setTimeout?: unknown;
}

/**
 * The cheapest macrotask `scope` offers: `setImmediate` where it exists (one
 * queued from an immediate runs in the loop's next round, after the timers
 * that are due); else a message through a `MessageChannel` of its own, closed
 * once it arrives (a task, and unlike `setTimeout(0)` not clamped to 4 ms once
 * nested in a browser; a port left open would keep a Node.js or Deno process
 * alive); else `setTimeout(0)`.
 */
export function macrotaskScheduler(scope: MacrotaskGlobals): Schedule {
  const { setImmediate, MessageChannel, setTimeout } = scope;
  if (typeof setImmediate === 'function') {
    return (callback) => {
      (setImmediate as (callback: () => void) => unknown)(callback);
    };
  }
  if (typeof MessageChannel === 'function') {
    const Channel = MessageChannel as typeof globalThis.MessageChannel;
    return (callback) => {
      const channel = new Channel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        callback();
      };
      channel.port2.postMessage(undefined);
    };
  }
  return (callback) => {
    (setTimeout as (callback: () => void, ms: number) => unknown)(callback, 0);
  };
}

// Chosen once, when the module loads: fake timers a test installs later must not hold an agent run, which waits
// here for nothing in time, only for what is already due.
const schedule = macrotaskScheduler(globalThis);

/** Resolves in a macrotask of its own, once the event loop has run the timers, I/O callbacks and tasks that are due. */
export function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => {
    schedule(resolve);
  });
}
