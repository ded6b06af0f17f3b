/**
 * The README's quick start, run as an ESM program against the installed
 * package (its import from 'staged-middleware' unchanged), prints what the
 * README says it prints.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quickStart } from '../readme-blocks';
import { consumer, runScript } from './consumer';
import { transpile } from './transpile';

describe('README', () => {
  describe('Quick start, against the installed package', () => {
    it('runs as written and prints what the README says', () => {
      const { code, printed } = quickStart();
      expect(code).toContain("from 'staged-middleware'");
      writeFileSync(join(consumer, 'quick-start.mjs'), transpile(code, 'esm'));
      expect(runScript('quick-start.mjs')).toBe(printed);
    });
  });
});
