/**
 * The file-length check `npm run lint` runs (scripts/check-file-length.mjs), run as its own process on files written
 * to a scratch directory: which files it counts, where its limit lies, and what it prints.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const script = join(import.meta.dirname, '..', '..', 'scripts', 'check-file-length.mjs');
const directory = mkdtempSync(join(tmpdir(), 'file-length-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Writes `name` with `count` lines, the last one ending in a newline unless `unterminated`. */
function file(name: string, count: number, unterminated = false): string {
  const text = Array.from({ length: count }, (_line, index) => `// line ${String(index + 1)}`).join('\n');
  writeFileSync(join(directory, name), unterminated ? text : `${text}\n`);
  return name;
}

/** Runs the check on `files` (relative to the scratch directory): its exit status and what it printed. */
function check(...files: string[]): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [script, ...files], { cwd: directory, encoding: 'utf8' });
  return { status, stdout, stderr };
}

describe('check-file-length', () => {
  describe('at the warning length of 400 lines', () => {
    it('passes a code file of 400 lines, printing nothing', () => {
      expect(check(file('limit.ts', 400))).toEqual({ status: 0, stdout: '', stderr: '' });
    });

    it('warns about a code file of 401 lines, naming it and its length, and still passes', () => {
      expect(check(file('limit.ts', 400), file('long.ts', 401))).toEqual({
        status: 0,
        stdout: '',
        stderr:
          'warning: 1 code file(s) over 400 lines; if one holds a second concept, give it a file of its own (see CONTRIBUTING.md, Style):\n  long.ts: 401 lines\n',
      });
    });

    it('counts a last line without a newline', () => {
      expect(check(file('unterminated.mjs', 401, true)).stderr).toContain('  unterminated.mjs: 401 lines\n');
    });
  });

  describe('which files it counts', () => {
    it.each(['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'])('counts a .%s file', (extension) => {
      expect(check(file(`long.${extension}`, 401)).stderr).toContain(`  long.${extension}: 401 lines\n`);
    });

    it.each(['long.md', 'long.json', 'long.api.md'])('leaves out %s, which is not code', (name) => {
      expect(check(file(name, 500))).toEqual({ status: 0, stdout: '', stderr: '' });
    });

    it('lists every long file, the longest first', () => {
      const { status, stderr } = check(file('a.ts', 420), file('b.js', 450), file('c.ts', 300));
      expect({ status, lines: stderr.split('\n').slice(1) }).toEqual({
        status: 0,
        lines: ['  b.js: 450 lines', '  a.ts: 420 lines', ''],
      });
    });

    it('skips a listed file that no longer exists', () => {
      expect(check('deleted.ts')).toEqual({ status: 0, stdout: '', stderr: '' });
    });
  });
});
