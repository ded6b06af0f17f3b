/**
 * The committed benchmark record and the table of docs/performance.md agree:
 * the table is exactly what `npm run bench -- --record` generates from
 * `bench/results.json`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIGURES } from '../../bench/figures';
import { PERFORMANCE_PAGE, performanceTable, readRecord, withPerformanceTable } from '../../bench/record';

describe('bench/record.ts', () => {
  describe('performanceTable', () => {
    it('is the table docs/performance.md shows for the committed record', () => {
      const page = readFileSync(PERFORMANCE_PAGE, 'utf8');
      expect(withPerformanceTable(page, performanceTable(readRecord(), FIGURES))).toBe(page);
    });

    it('shows a figure with its floors and how far it is over the checked one, a figure far below 1 with its speed-up, and a missed goal as not met', () => {
      const table = performanceTable(
        {
          node: 'v0.0.0',
          figures: {
            stream_k0: { ratio: 1.3171, baseline: 'the terminal alone', detail: { goal: 1.3, pass: false, floorRatio: 1.2731 } },
            stream_k5: {
              ratio: 1.0956,
              baseline: 'five layers by hand',
              detail: { goal: 1.1, pass: true, floorRatio: 1.0712, checkedFloorRatio: 1.0804 },
            },
            agent_turn: {
              ratio: 1.7002,
              baseline: 'a loop by hand',
              detail: { goal: 1.15, pass: false, floorRatio: 1.1384, checkedFloorRatio: 1.6511, overCheckedFloor: 1.0267 },
            },
            state_vs_clone: { ratio: 0.0000188, baseline: 'structuredClone', detail: { goal: 0.001, pass: true } },
            state_scaling: { ratio: 0.999, baseline: 'a small state', detail: { goal: 2, pass: true } },
          },
        },
        [
          { name: 'stream_k0', measures: 'no handlers' },
          { name: 'stream_k5', measures: 'five handlers' },
          { name: 'agent_turn', measures: 'one agent run' },
          { name: 'state_vs_clone', measures: 'the same invoke' },
          { name: 'state_scaling', measures: 'a large state' },
        ],
      );
      expect(table.split('\n').slice(1)).toEqual([
        'Latest recorded run (Node v0.0.0):',
        '',
        '| figure | ours | baseline | goal | ratio (median) | met |',
        '| --- | --- | --- | --- | --- | --- |',
        '| `stream_k0` | no handlers | the terminal alone | ≤ 1.30 | 1.317 (floor 1.273) | no |',
        '| `stream_k5` | five handlers | five layers by hand | ≤ 1.10 | 1.096 (floor 1.071, with the checks 1.080) | yes |',
        '| `agent_turn` | one agent run | a loop by hand | ≤ 1.15 | 1.700 (floor 1.138, with the checks 1.651; ours over it 1.027) | no |',
        '| `state_vs_clone` | the same invoke | structuredClone | ≤ 0.001 | 0.0000188 (about 53,000 times faster) | yes |',
        '| `state_scaling` | a large state | a small state | ≤ 2 | 0.999 | yes |',
        '<!-- end of the performance table -->',
      ]);
    });
  });

  describe('withPerformanceTable', () => {
    it('refuses a page without the generated table', () => {
      expect(() => withPerformanceTable('# Performance\n', 'table')).toThrow('docs/performance.md has no generated performance table');
    });
  });
});
