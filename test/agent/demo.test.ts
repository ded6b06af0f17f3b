import { describe, expect, it } from 'vitest';
import { main, runDemo } from '../../examples/demo';
import { renderEntry } from '../../examples/timeline';

const clock = (): Date => new Date('2030-01-02T03:04:05Z');

describe('runDemo', () => {
  describe('pretty mode', () => {
    it('shows every stage, phase and handler in nesting order, the blocked tool and the redaction', async () => {
      const lines: string[] = [];
      const outcome = await runDemo({ mode: 'pretty', color: false, now: clock, write: (line) => lines.push(line) });
      const structure = outcome.entries
        .filter((entry) => entry.kind !== 'event')
        .map((entry) =>
          `${'  '.repeat(entry.depth)}${entry.kind} ${entry.stage} ${entry.phase ?? ''} ${entry.handler ?? ''} ${entry.attempt ?? ''}`.trimEnd(),
        );
      expect(structure).toEqual([
        'invoke agentStream',
        '  layer agentStream terminal agent loop 1',
        '    invoke invokeModel',
        '      handler invokeModel input addDate',
        '      layer invokeModel wrap retryOnce 1',
        '        layer invokeModel terminal model.stream 1',
        '        layer invokeModel terminal model.stream 2',
        '      handler invokeModel output redactEmail',
        '    end invokeModel',
        '    invoke executeTool',
        '      layer executeTool wrap toolGuard 1',
        '        layer executeTool terminal tool.run 1',
        '    end executeTool',
        '    invoke executeTool',
        '      layer executeTool wrap toolGuard 1',
        '    end executeTool',
        '    invoke turn',
        '      layer turn terminal natural decision 1',
        '    end turn',
        '    invoke invokeModel',
        '      handler invokeModel input addDate',
        '      layer invokeModel wrap retryOnce 1',
        '        layer invokeModel terminal model.stream 1',
        '      handler invokeModel output redactEmail',
        '    end invokeModel',
        '    invoke turn',
        '      layer turn terminal natural decision 1',
        '    end turn',
        'end agentStream',
      ]);
      expect(outcome.systemPrompts).toEqual([
        "You are a helpful shop assistant.\nToday's date is 2030-01-02.",
        "You are a helpful shop assistant.\nToday's date is 2030-01-02.",
        "You are a helpful shop assistant.\nToday's date is 2030-01-02.",
      ]);
      expect(outcome.answer).toEqual(
        'Order A-1042 shipped on 2026-11-20 and arrives Tuesday. I could not delete the old files: that needs a human. Questions? Write to [email redacted].',
      );
      expect(outcome.result?.stopReason).toEqual('endTurn');
      const blocked = outcome.entries.find((entry) => entry.detail?.startsWith('toolResult error'));
      expect(blocked).toEqual({
        depth: 4,
        kind: 'event',
        stage: 'executeTool',
        handler: 'toolGuard',
        detail: 'toolResult error: Blocked by policy: delete_files needs a human.',
      });
      expect(
        outcome.entries.some((entry) => entry.detail === 'threw: 503 Service Unavailable (scripted)' && entry.failed === true),
      ).toEqual(true);
      expect(lines.at(-1)).toEqual(`Answer (endTurn): ${outcome.answer}`);
      expect(lines.some((line) => line.includes('\u001b['))).toEqual(false);
    });

    it('colours lines when asked', async () => {
      const lines: string[] = [];
      await runDemo({ mode: 'pretty', color: true, now: clock, write: (line) => lines.push(line) });
      expect(lines[0]).toEqual('\u001b[1m▶\u001b[0m \u001b[36magentStream\u001b[0m');
    });
  });

  describe('json mode', () => {
    it('prints each timeline entry as one JSON line, then the answer', async () => {
      const lines: string[] = [];
      const outcome = await runDemo({ mode: 'json', color: true, now: clock, write: (line) => lines.push(line) });
      const parsed = lines.map((line) => JSON.parse(line) as unknown);
      expect(parsed).toEqual([...outcome.entries, { kind: 'answer', stopReason: 'endTurn', text: outcome.answer }]);
    });
  });

  describe('explain mode', () => {
    it('prints the resolved chain of each stage', async () => {
      const lines: string[] = [];
      await runDemo({ mode: 'explain', color: false, now: clock, write: (line) => lines.push(line) });
      expect(lines.join('\n')).toEqual(
        [
          'stage "agentStream"',
          '└─ terminal',
          '',
          'stage "invokeModel"',
          '├─ input   1. addDate',
          '├─ output  1. redactEmail',
          '└─ wrap    1. retryOnce',
          '   └─ terminal',
          '',
          'stage "executeTool"',
          '└─ wrap    1. toolGuard',
          '   └─ terminal',
          '',
          'stage "turn"',
          '└─ terminal',
          '',
        ].join('\n'),
      );
    });
  });
});

describe('main', () => {
  describe('flags and colours', () => {
    it.each([
      [['--json'], {}, true, 'json'],
      [['--explain'], {}, true, 'explain'],
      [[], {}, true, 'coloured'],
      [[], { NO_COLOR: '1' }, true, 'plain'],
      [[], {}, false, 'plain'],
    ])('with %j, %j and TTY %j prints %s output', async (argv, environment, isTTY, expected) => {
      const lines: string[] = [];
      await main(argv, environment, isTTY, (line) => lines.push(line));
      const kind = lines[0]?.startsWith('{')
        ? 'json'
        : lines[0]?.startsWith('stage "')
          ? 'explain'
          : lines[0]?.includes('\u001b[')
            ? 'coloured'
            : 'plain';
      expect(kind).toEqual(expected);
    });
  });
});

describe('renderEntry', () => {
  describe('failures', () => {
    it('shows a failed handler and a failed end in red', () => {
      expect(
        renderEntry({ depth: 1, kind: 'handler', stage: 's', phase: 'input', handler: 'h', detail: 'boom', failed: true }, false),
      ).toEqual('  input    h boom');
      expect(renderEntry({ depth: 0, kind: 'end', stage: 's', detail: 'error: x', failed: true }, true)).toEqual(
        '\u001b[31m◀\u001b[0m \u001b[36ms\u001b[0m \u001b[31merror: x\u001b[0m',
      );
    });
  });
});
