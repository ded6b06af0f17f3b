import { describe, expect, it } from 'vitest';
import { main } from '../../examples/demo';
import { runLongDemo } from '../../examples/long-run';
import type { Message } from '../../src/agent/index';

const textOf = (message: Message | undefined): string =>
  (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : block.type)).join('');

describe('runLongDemo', () => {
  describe('the timeline', () => {
    it('nests the compaction and its summary call before the last model call, and the sub-agent inside the tool call', async () => {
      const outcome = await runLongDemo({ color: false, write: () => undefined });
      const structure = outcome.entries
        .filter((entry) => entry.kind === 'invoke' || entry.kind === 'layer')
        .map(
          (entry) =>
            `${'  '.repeat(entry.depth)}${entry.kind === 'invoke' ? `${entry.stage}${entry.detail === undefined ? '' : ` (${entry.detail})`}` : `${entry.phase ?? ''} ${entry.handler ?? ''}`}`,
        );
      const child = 'agent ask_shipping for shop call-2';
      expect(structure).toEqual([
        'agentStream',
        '  terminal agent loop',
        '    invokeModel',
        '      terminal model.stream',
        '    executeTool',
        '      wrap subagent',
        '        terminal tool.run',
        '    turn',
        '      terminal natural decision',
        '    invokeModel',
        '      terminal model.stream',
        '    executeTool',
        '      wrap subagent',
        '        terminal tool.run',
        `          agentStream (${child})`,
        '            terminal agent loop',
        `              invokeModel (${child})`,
        '                terminal model.stream',
        `              executeTool (${child})`,
        '                wrap subagent',
        '                  terminal tool.run',
        `              turn (${child})`,
        '                terminal natural decision',
        `              invokeModel (${child})`,
        '                terminal model.stream',
        `              turn (${child})`,
        '                terminal natural decision',
        '    turn',
        '      terminal natural decision',
        '    compressContext',
        '      wrap compaction',
        '        terminal history as it is',
        '        invokeModel (made by compaction)',
        '          terminal model.stream',
        '    invokeModel',
        '      terminal model.stream',
        '    turn',
        '      terminal natural decision',
      ]);
    });

    it('reports the replaced history on a contextCompressed event of the agent loop', async () => {
      const outcome = await runLongDemo({ color: false, write: () => undefined });
      const compressed = outcome.entries.filter((entry) => entry.detail?.startsWith('contextCompressed'));
      const [, tokens] = /\((\d+) tokens over 300\)$/.exec(compressed[0]?.detail ?? '') ?? [];
      expect([
        compressed.length,
        compressed[0]?.stage,
        compressed[0]?.depth,
        compressed[0]?.detail?.startsWith('contextCompressed 11 messages -> 3 ('),
        Number(tokens) > 300,
      ]).toEqual([1, 'agentStream', 2, true, true]);
    });
  });

  describe('the outcome', () => {
    it('keeps the summary and the last two messages, and counts the summary and the sub-agent apart from the agent', async () => {
      const outcome = await runLongDemo({ color: false, write: () => undefined });
      expect([
        outcome.messages.map(textOf),
        outcome.result.usage,
        outcome.result.middlewareUsage,
        outcome.requests.agent,
        outcome.requests.shipping,
      ]).toEqual([
        [
          'Summary of the earlier conversation:\nDesk lamp A-1042, gift note for Sam, redirected to 12 Quay Street; shipped 2026-11-20 from Oslo by CargoLine. The user asks if it arrives before the weekend.',
          'toolUse',
          'toolResult',
          'Your lamp is on its way to 12 Quay Street and arrives on Friday, before the weekend.',
        ],
        { inputTokens: 480, outputTokens: 80, totalTokens: 560 },
        {
          ask_shipping: { inputTokens: 140, outputTokens: 20, totalTokens: 160 },
          compaction: { inputTokens: 120, outputTokens: 22, totalTokens: 142 },
        },
        3,
        2,
      ]);
    });

    it('gives the summariser a transcript of the nine older messages, one line each', async () => {
      const outcome = await runLongDemo({ color: false, write: () => undefined });
      const [request] = outcome.requests.summarizer;
      const lines = textOf(request?.[0]).split('\n');
      expect([
        outcome.requests.summarizer.length,
        request?.length,
        lines.slice(0, 3),
        lines.length,
        lines.at(-1)?.startsWith('user: [tool result success: {"orderId":"A-1042"'),
      ]).toEqual([1, 1, ['Summarise this conversation:', '', 'user: Hi, I ordered a desk lamp last week, order A-1042.'], 11, true]);
    });
  });

  describe('the printed lines', () => {
    it('leave out the model stream events and end with the answer and the usage by caller', async () => {
      const lines: string[] = [];
      await runLongDemo({ color: false, write: (line) => lines.push(line) });
      expect([lines.some((line) => /· (messageStart|usage |text )/.test(line)), lines.slice(-6)]).toEqual([
        false,
        [
          '',
          'Answer (endTurn): Your lamp is on its way to 12 Quay Street and arrives on Friday, before the weekend.',
          'History: 7 messages before the run, 4 after (the first is the summary)',
          "Usage of the agent's own model calls: in=480 out=80",
          'Usage of calls made by ask_shipping: in=140 out=20',
          'Usage of calls made by compaction: in=120 out=22',
        ],
      ]);
    });
  });
});

describe('main', () => {
  describe('with --long', () => {
    it('runs the long demo', async () => {
      const lines: string[] = [];
      const outcome = await main(['--long'], { NO_COLOR: '1' }, true, (line) => lines.push(line));
      expect([outcome, lines[0], lines.some((line) => line.includes('▶ compressContext'))]).toEqual([undefined, '▶ agentStream', true]);
    });
  });
});
