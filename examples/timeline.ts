/**
 * A timeline logger built on `registry.instrument()`: it sees every Input and
 * Output handler call and every entry into a Wrap layer or terminal, of every
 * stage, and records them as entries nested the way they ran.
 *
 * Why instrumentation and not a Wrap handler: a Wrap handler sees the layers
 * inside it only as one `next()`; an observer is told about each layer.
 */
import type { Instrumentation, InvokeObserver, LayerInfo } from '../src/core/index';

/** One line of the timeline. */
export interface TimelineEntry {
  /** Nesting depth (0 = outermost). */
  readonly depth: number;
  /** What happened. */
  readonly kind: 'invoke' | 'handler' | 'layer' | 'event' | 'end';
  /** The stage. */
  readonly stage: string;
  /** `input`, `output`, `wrap` or `terminal` (absent for invoke start and end). */
  readonly phase?: string;
  /** The handler's name. */
  readonly handler?: string;
  /** For layers: 1 for the first entry, 2 for a retry, and so on. */
  readonly attempt?: number;
  /** A short description (an event, an outcome, who made an invoke). */
  readonly detail?: string;
  /** True when something failed here. */
  readonly failed?: boolean;
}

/** What the terminal of each agent stage is, for the timeline. */
const TERMINALS: Readonly<Record<string, string>> = {
  agentStream: 'agent loop',
  invokeModel: 'model.stream',
  executeTool: 'tool.run',
  turn: 'natural decision',
  compressContext: 'history as it is',
};

/** Summarises an event in a few words. */
export function describeEvent(event: unknown): string {
  const value = event as Record<string, unknown>;
  switch (value.type) {
    case 'textDelta':
      return `text ${JSON.stringify(value.text)}`;
    case 'toolUseStart':
      return `toolUseStart ${String(value.name)} (${String(value.toolUseId)})`;
    case 'toolUseDelta':
      return `toolUseDelta ${String(value.input)}`;
    case 'messageStop':
      return `messageStop ${String(value.stopReason)}`;
    case 'modelResult': {
      const message = value.message as { content: { type: string; text?: string }[] };
      const text = message.content
        .filter((block) => block.type === 'text')
        .map((block) => block.text)
        .join('');
      return `modelResult ${String(value.stopReason)}${text.length > 0 ? ` ${JSON.stringify(text)}` : ''}`;
    }
    case 'usage': {
      const usage = value.usage as { inputTokens: number; outputTokens: number };
      return `usage in=${usage.inputTokens} out=${usage.outputTokens}`;
    }
    case 'toolResult': {
      const result = value.toolResult as { status: string; content: { text?: string; json?: unknown }[] };
      const first = result.content[0];
      return `toolResult ${result.status}: ${first?.text ?? JSON.stringify(first?.json)}`;
    }
    case 'turnResult': {
      const stoppedBy = value.stoppedBy as { handler: string } | undefined;
      return `turnResult ${String(value.decision)}${stoppedBy === undefined ? '' : ` by ${stoppedBy.handler}`}`;
    }
    case 'interrupt': {
      const interrupt = value.interrupt as { id: string };
      return `interrupt ${interrupt.id}`;
    }
    case 'agentResult':
      return `agentResult stopReason=${String(value.stopReason)}`;
    case 'contextResult':
      return `contextResult ${(value.messages as unknown[]).length} messages`;
    case 'contextCompressed':
      return `contextCompressed ${(value.replaced as unknown[]).length} messages -> ${(value.messages as unknown[]).length} (${String(value.tokens)} tokens over ${String(value.maxTokens)})`;
    default:
      return String(value.type);
  }
}

/** Who made an invoke, when it is not the agent's own loop: a middleware's model call, or a sub-agent working for a tool call. */
function whoInvokes(context: unknown): string | undefined {
  const value = context as
    { caller?: unknown; agent?: { name?: unknown; parent?: { name: string; toolUseId: string } } } | null | undefined;
  if (typeof value?.caller === 'string') return `made by ${value.caller}`;
  const parent = value?.agent?.parent;
  return parent === undefined ? undefined : `agent ${String(value?.agent?.name)} for ${parent.name} ${parent.toolUseId}`;
}

/**
 * Creates the timeline instrumentation; entries go to `emit` as they happen.
 * Consecutive text deltas of one layer are merged into one entry.
 */
export function timeline(emit: (entry: TimelineEntry) => void): Instrumentation {
  /** Depths of the layers currently running, innermost last. */
  const active: number[] = [];
  /** Events already reported by an inner layer, so each event appears once, where it was made. */
  const reported = new WeakSet();

  return {
    name: 'timeline',
    invoke(info): InvokeObserver {
      const stage = info.stage.name;
      const base = active.length === 0 ? 0 : (active[active.length - 1] as number) + 1;
      const who = whoInvokes(info.context);
      emit(who === undefined ? { depth: base, kind: 'invoke', stage } : { depth: base, kind: 'invoke', stage, detail: who });
      return {
        handlerStart(handler) {
          emit({ depth: base + 1, kind: 'handler', stage, phase: handler.phase, handler: handler.handler });
        },
        handlerEnd(handler, error) {
          if (error === undefined) return;
          const failure = error as Error;
          emit({
            depth: base + 1,
            kind: 'handler',
            stage,
            phase: handler.phase,
            handler: handler.handler,
            detail: String(failure),
            failed: true,
          });
        },
        layer(layer: LayerInfo, events) {
          const depth = base + 1 + layer.position;
          return observeLayer(layer, depth, events);
        },
        end(outcome) {
          // An Output handler may have replaced the result: it is reported here, not again by the outer stage.
          if (outcome.status === 'success' && typeof outcome.result === 'object' && outcome.result !== null) reported.add(outcome.result);
          const detail =
            outcome.status === 'success'
              ? describeEvent(outcome.result)
              : outcome.status === 'error'
                ? `error: ${String(outcome.error)}`
                : 'closed';
          emit({ depth: base, kind: 'end', stage, detail, failed: outcome.status === 'error' });
        },
      };

      async function* observeLayer(
        layer: LayerInfo,
        depth: number,
        events: AsyncGenerator<unknown, void, undefined>,
      ): AsyncGenerator<unknown, void, undefined> {
        const phase = layer.kind === 'terminal' ? 'terminal' : 'wrap';
        emit({
          depth,
          kind: 'layer',
          stage,
          phase,
          handler: layer.kind === 'terminal' ? (TERMINALS[stage] ?? 'terminal') : layer.handler,
          attempt: layer.attempt,
        });
        const prompt = (layer.context as { systemPrompt?: unknown } | undefined)?.systemPrompt;
        if (layer.kind === 'terminal' && Array.isArray(prompt)) {
          const text = (prompt as { text?: unknown }[])
            .filter((block) => typeof block.text === 'string')
            .map((block) => block.text)
            .join(' ');
          emit({ depth: depth + 1, kind: 'event', stage, handler: layer.handler, detail: `system prompt ${JSON.stringify(text)}` });
        }
        let text = '';
        const flush = (): void => {
          if (text.length > 0)
            emit({ depth: depth + 1, kind: 'event', stage, handler: layer.handler, detail: `text ${JSON.stringify(text)}` });
          text = '';
        };
        active.push(depth);
        try {
          for (;;) {
            // The stack holds this layer only while its own code runs, not while outer layers handle its events.
            const pulled = await events.next();
            if (pulled.done === true) break;
            const event = pulled.value;
            if (typeof event === 'object' && event !== null && !reported.has(event)) {
              reported.add(event);
              const value = event as { type?: unknown; text?: unknown };
              if (value.type === 'textDelta') text += String(value.text);
              else {
                flush();
                emit({ depth: depth + 1, kind: 'event', stage, handler: layer.handler, detail: describeEvent(event) });
              }
            }
            active.pop();
            try {
              yield event;
            } finally {
              active.push(depth);
            }
          }
          flush();
        } catch (error) {
          flush();
          emit({
            depth: depth + 1,
            kind: 'event',
            stage,
            handler: layer.handler,
            detail: `threw: ${error instanceof Error ? error.message : String(error)}`,
            failed: true,
          });
          throw error;
        } finally {
          active.pop();
        }
      }
    },
  };
}

const codes = {
  reset: '\u001b[0m',
  dim: '\u001b[2m',
  bold: '\u001b[1m',
  red: '\u001b[31m',
  green: '\u001b[32m',
  yellow: '\u001b[33m',
  blue: '\u001b[34m',
  magenta: '\u001b[35m',
  cyan: '\u001b[36m',
};

/** Renders one entry as an indented, optionally coloured line. */
export function renderEntry(entry: TimelineEntry, color: boolean): string {
  const paint = (code: keyof typeof codes, text: string): string => (color ? `${codes[code]}${text}${codes.reset}` : text);
  const indent = '  '.repeat(entry.depth);
  const phaseColour: Partial<Record<string, 'blue' | 'yellow' | 'magenta' | 'green'>> = {
    input: 'blue',
    output: 'yellow',
    wrap: 'magenta',
    terminal: 'green',
  };
  switch (entry.kind) {
    case 'invoke':
      return `${indent}${paint('bold', '▶')} ${paint('cyan', entry.stage)}${entry.detail === undefined ? '' : ` ${paint('dim', `(${entry.detail})`)}`}`;
    case 'end':
      return `${indent}${paint(entry.failed === true ? 'red' : 'bold', '◀')} ${paint('cyan', entry.stage)} ${paint(entry.failed === true ? 'red' : 'dim', entry.detail ?? '')}`;
    case 'handler':
    case 'layer': {
      const phase = entry.phase ?? '';
      const colour = phaseColour[phase] ?? 'reset';
      const attempt = entry.attempt !== undefined && entry.attempt > 1 ? paint('yellow', ` (attempt ${entry.attempt})`) : '';
      const failure = entry.failed === true ? ` ${paint('red', entry.detail ?? '')}` : '';
      return `${indent}${paint(colour, phase.padEnd(8))} ${entry.handler ?? ''}${attempt}${failure}`;
    }
    case 'event':
      return `${indent}${paint(entry.failed === true ? 'red' : 'dim', `· ${entry.detail ?? ''}`)}`;
  }
}
