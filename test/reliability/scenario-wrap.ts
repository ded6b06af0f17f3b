/**
 * The Wrap handler each generated Wrap behaviour describes (pass through,
 * short-circuit, retry, catch and replace, ...), recording its entries,
 * catches and finallys into the run's trace (`scenario.ts` builds the other
 * handlers and the terminal).
 */
import type { UserError, WrapBehaviour } from './scenario';

/** Engine errors are named by code (the engines word messages differently), user errors by message. */
function caughtLabel(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}

type AnyWrap = (
  context: string,
  next: (context?: string) => AsyncGenerator<unknown, void, undefined>,
) => AsyncGenerator<unknown, void, undefined>;

/** The Wrap handler of `behaviour`, for registration `index` (labelled `label`). */
export function wrapHandler(
  behaviour: WrapBehaviour,
  index: number,
  label: string,
  trace: string[],
  fail: (what: string) => UserError,
): AnyWrap {
  switch (behaviour.kind) {
    case 'pass':
      return async function* pass(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next();
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'filter':
      return async function* filter(_context, next) {
        trace.push(`${label}:enter`);
        let seen = 0;
        try {
          for await (const event of next()) {
            // Drops every second event (never the only one).
            if (seen++ % 2 === 1) continue;
            yield event;
          }
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'map':
      return async function* map(_context, next) {
        trace.push(`${label}:enter`);
        try {
          for await (const event of next()) yield `${String(event)}/${index}`;
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'inject-before':
    case 'inject-after': {
      const injected = `${behaviour.result ? 'r' : 'd'}:${label}${behaviour.bang ? '!' : ''}`;
      const before = behaviour.kind === 'inject-before';
      return async function* inject(_context, next) {
        trace.push(`${label}:enter`);
        try {
          if (before) yield injected;
          yield* next();
          if (!before) yield injected;
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    }
    case 'short-circuit':
      return async function* shortCircuit(context) {
        trace.push(`${label}:enter`);
        try {
          yield `r:${context}:${label}`;
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'retry': {
      const attempts = behaviour.attempts;
      return async function* retry(_context, next) {
        trace.push(`${label}:enter`);
        try {
          for (let attempt = 1; ; attempt++) {
            try {
              yield* next();
              return;
            } catch (error) {
              trace.push(`${label}:caught ${attempt}`);
              if (attempt >= attempts) throw error;
            }
          }
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    }
    case 'throw-before':
      return async function* throwBefore() {
        trace.push(`${label}:enter`);
        throw fail('before');
      };
    case 'throw-after':
      return async function* throwAfter(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next();
          throw fail('after');
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'catch-recover':
      return async function* catchRecover(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next();
        } catch (error) {
          trace.push(`${label}:caught ${caughtLabel(error)}`);
          yield `r:recovered:${label}`;
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'replace-context':
      return async function* replaceContext(context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next(`${context}~${index}`);
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'peek':
      return async function* peek(_context, next) {
        trace.push(`${label}:enter`);
        try {
          // Pulls one event by hand and leaves the inner chain open: the invoke must close it.
          const inner = next();
          const first = await inner.next();
          if (first.done !== true) yield first.value;
          yield `r:peeked:${label}`;
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'break-after': {
      const count = behaviour.count;
      return async function* breakAfter(_context, next) {
        trace.push(`${label}:enter`);
        let taken = 0;
        try {
          for await (const event of next()) {
            yield event;
            if (++taken >= count) break;
          }
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    }
    case 'call-twice':
      return async function* callTwice(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next();
          trace.push(`${label}:again`);
          yield* next();
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'interleave':
      return async function* interleave(context, next) {
        trace.push(`${label}:enter`);
        try {
          // Two inner chains open at once, pulled in turn (hedging without a race).
          const chains = [next(), next(`${context}~${index}b`)];
          const open = [true, true];
          while (open[0] === true || open[1] === true) {
            for (let which = 0; which < 2; which++) {
              if (open[which] !== true) continue;
              const pulled = await (chains[which] as AsyncGenerator<unknown, void, undefined>).next();
              if (pulled.done === true) open[which] = false;
              else yield pulled.value;
            }
          }
        } finally {
          trace.push(`${label}:finally`);
        }
      };
    case 'throw-in-finally':
      return async function* throwInFinally(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield* next();
        } finally {
          trace.push(`${label}:finally`);
          // eslint-disable-next-line no-unsafe-finally
          throw fail('finally');
        }
      };
    case 'yield-undefined':
      return async function* yieldUndefined(_context, next) {
        trace.push(`${label}:enter`);
        try {
          yield undefined;
          yield* next();
        } finally {
          trace.push(`${label}:finally`);
        }
      };
  }
}
