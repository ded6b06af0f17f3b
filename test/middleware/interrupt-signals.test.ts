/**
 * Interrupt signals of the agent kit meet the attempt loops of `retry`,
 * `fallback` and `regenerate`, and `tracing`: a question to a human is never
 * a failure to try again (MW-083, MW-220), nor an error on a span (MW-191).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, ExecuteToolStage, InterruptSignal, type ExecuteToolContext } from '../../src/agent/index';
import { fallback, isRetryableError, regenerate, retry, tracing } from '../../src/middleware/index';
import { runStage, ScriptedModel, ScriptedTool, scriptedTerminal, textTurn, throws, toolUseTurn } from '../../src/testing/index';
import { brand } from '../../src/util/brand';
import { ModelStage, answer, chunk } from './fixtures';
import { recordingTracer } from './recording-tracer';

const question = { id: 'executeTool:t1:approve', name: 'approve', reason: 'Refunds 40 EUR' } as const;

/** An interrupt signal as another installed copy of the package makes it: recorded in the realm-wide brands, no shared class. */
function foreignSignal(): Error {
  return brand(new Error('approve?'), 'interrupt-signal');
}

describe('isRetryableError', () => {
  describe('for interrupt signals', () => {
    it.each([
      ['an InterruptSignal of this copy', new InterruptSignal(question)],
      ['a signal of another copy (its brand alone)', foreignSignal()],
      ['a signal that also carries a retryable status', Object.assign(new InterruptSignal(question), { status: 503, isRetryable: true })],
    ])('refuses %s', (_name, error) => {
      expect(isRetryableError(error)).toBe(false);
    });

    it('takes an error carrying only the old marker property for an ordinary error, which is retried', () => {
      const forged = Object.defineProperty(new Error('approve?'), Symbol.for('staged-middleware.interrupt-signal'), { value: true });
      expect(isRetryableError(forged)).toBe(true);
    });
  });
});

describe.each([
  ['retry with the default retryOn', () => retry({ backoff: () => 0 })],
  ['retry with a retryOn that retries everything', () => retry({ backoff: () => 0, retryOn: () => true })],
  ['retry in live mode', () => retry({ backoff: () => 0, retryOn: () => true, stream: 'live' })],
  ['fallback', () => fallback([(context: { prompt: string }) => ({ ...context, model: 'small' })])],
  ['fallback in live mode', () => fallback([(context: { prompt: string }) => ({ ...context, model: 'small' })], { stream: 'live' })],
])('%s', (_name, make) => {
  describe('when the inner chain throws an interrupt signal', () => {
    it('rethrows the same object after one attempt, with no boundary event', async () => {
      const signal = new InterruptSignal(question);
      const terminal = scriptedTerminal([[chunk('thinking'), throws(signal)], [answer('ok')]]);
      const run = await runStage(ModelStage, { context: { prompt: 'refund' }, terminal, handlers: [[ModelStage.Wrap, make()]] });
      expect([run.error, terminal.calls.length, run.events.filter((event) => event.type === 'attempt-boundary')]).toEqual([signal, 1, []]);
      expect(run.error).toBe(signal);
    });
  });
});

describe('regenerate', () => {
  describe('when check throws an interrupt signal', () => {
    it('rethrows it without calling feedback or running another attempt', async () => {
      const signal = foreignSignal();
      const feedbacks: unknown[] = [];
      const terminal = scriptedTerminal([[answer('draft')], [answer('again')]]);
      const handler = regenerate({
        check: () => {
          throw signal;
        },
        feedback: (context, error) => {
          feedbacks.push(error);
          return context;
        },
      });
      const run = await runStage(ModelStage, { context: { prompt: 'refund' }, terminal, handlers: [[ModelStage.Wrap, handler]] });
      expect([run.error, terminal.calls.length, feedbacks]).toEqual([signal, 1, []]);
      expect(run.error).toBe(signal);
    });
  });
});

describe('an agent whose tool asks a human, with an attempt loop around ExecuteToolStage', () => {
  it.each([
    ['retry', () => retry({ backoff: () => 0, retryOn: () => true })],
    ['fallback', () => fallback([(context: ExecuteToolContext) => context])],
  ])('halts on the question with %s, the tool called once', async (_name, make) => {
    const refund = new ScriptedTool({
      name: 'refund',
      respond: (_input, context) => context.interrupt({ name: 'approve', reason: 'Refunds 40 EUR' }).response,
    });
    const model = new ScriptedModel([toolUseTurn([{ name: 'refund', input: { amount: 40 }, toolUseId: 't1' }]), textTurn('Refunded.')]);
    const registry = new MiddlewareRegistry();
    registry.add(ExecuteToolStage.Wrap, make());
    const agent = new Agent({ model, tools: [refund], registry });
    const result = await agent.invoke('Refund order 7');
    expect([result.stopReason, result.interrupts.map((interrupt) => interrupt.id), refund.calls.length]).toEqual([
      'interrupt',
      ['executeTool:t1:approve'],
      1,
    ]);
  });
});

describe('tracing', () => {
  describe('when the terminal throws an interrupt signal of another copy', () => {
    it('marks the invoke and layer spans interrupted, with no ERROR status and no exception', async () => {
      const { exporter, tracer } = recordingTracer();
      const signal = foreignSignal();
      const run = await runStage(ModelStage, {
        context: { prompt: 'refund?' },
        terminal: scriptedTerminal([[throws(signal)]]),
        instrument: [tracing({ tracer })],
      });
      expect(run.error).toBe(signal);
      expect(
        exporter.getFinishedSpans().map((span) => [span.name, span.status.code, span.events.length, span.attributes['staged.interrupted']]),
      ).toEqual([
        ['model terminal', 0, 0, true],
        ['model', 0, 0, true],
      ]);
    });
  });
});

describe('the built-in middleware', () => {
  it('recognise interrupt signals without importing the agent kit', () => {
    const directory = join(import.meta.dirname, '..', '..', 'src', 'middleware');
    const files = readdirSync(directory, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const importers = files.filter((file) => /from '(\.\.\/)+agent\//.test(readFileSync(join(directory, file), 'utf8')));
    expect([importers, files.includes('retry.ts') || files.some((file) => file.endsWith(`${sep}retry.ts`))]).toEqual([[], true]);
  });
});
