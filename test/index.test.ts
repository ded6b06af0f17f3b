import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as entry from '../src/core/index';

const INDEX_SOURCE = readFileSync(new URL('../src/core/index.ts', import.meta.url), 'utf8');

describe('staged-middleware (main entry point)', () => {
  describe('runtime exports', () => {
    it('exposes exactly the public functions and classes, nothing internal', () => {
      expect(Object.keys(entry).sort()).toEqual([
        'MiddlewareError',
        'MiddlewareRegistry',
        'MiddlewareResult',
        'createContributionKey',
        'createStage',
        'isPhaseToken',
        'isStage',
        'isSystemTextBlock',
        'registration',
        'splitSystemPrompt',
        'toSystemBlocks',
      ]);
    });

    it('exposes functions and classes only, no default export', () => {
      const kinds = Object.entries(entry).map(([name, value]) => [name, typeof value]);
      expect(kinds.filter(([, kind]) => kind !== 'function')).toEqual([]);
      expect('default' in entry).toBe(false);
    });
  });

  describe('source of the entry point', () => {
    it.each([
      ['a wildcard re-export', /export \*/],
      ['a default export', /export default/],
    ])('contains no %s', (_what, pattern) => {
      expect(pattern.test(INDEX_SOURCE)).toBe(false);
    });

    it('names every re-exported module as a relative module of src', () => {
      const modules = [...INDEX_SOURCE.matchAll(/from '([^']+)'/g)].map((match) => match[1]);
      expect(modules.filter((module) => module === undefined || !/^\.\/[a-z-]+(\/[a-z-]+)*$/.test(module))).toEqual([]);
    });
  });
});
