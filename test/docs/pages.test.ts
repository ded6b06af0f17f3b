/**
 * The pages of `docs/` say what the code does: their examples are the tested
 * files of `examples/`, their transcripts what the demo and the examples
 * print, their tables what the generators make of the error tables and the
 * benchmark record, and their links lead somewhere.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCodesTable, withErrorCodesTable } from '../../scripts/docs-errors';
import { markdownSection, readme, root, sectionBlocks } from '../readme-blocks';
import { docsPages } from './code-blocks';

function runTypeScript(file: string, ...args: string[]): string {
  return execFileSync(process.execPath, ['--import', 'tsx', join(root, file), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
}

/** An example file as the documentation shows it: from its first import, importing the package's entry points. */
function shown(file: string): string {
  const example = readFileSync(join(root, file), 'utf8');
  return example
    .slice(example.indexOf('import '))
    .replace("from '../src/core/index'", "from 'staged-middleware'")
    .replace("from '../src/agent/index'", "from 'staged-middleware/agent'")
    .replace("from '../src/ai-sdk/index'", "from 'staged-middleware/ai-sdk'")
    .replace("from '../src/middleware/index'", "from 'staged-middleware/middleware'");
}

/** The first ts block of a section of a page. */
function firstTs(page: string, section: string): string | undefined {
  return sectionBlocks(page, section).find((block) => block.lang === 'ts')?.body;
}

/** The text blocks of a section of a page, in order. */
function texts(page: string, section: string): string[] {
  return sectionBlocks(page, section)
    .filter((block) => block.lang === 'text')
    .map((block) => block.body);
}

// Each test that runs an example starts a Node.js process (tsx compiling the sources), which takes seconds on a loaded machine.
describe('docs/', { timeout: 60_000 }, () => {
  describe('demo.md', () => {
    it('shows the timeline the demo prints (the date aside)', () => {
      const dateless = (text: string): string => text.replace(/Today's date is \d{4}-\d{2}-\d{2}/g, "Today's date is <date>");
      expect(dateless(runTypeScript('examples/demo.ts'))).toBe(dateless(texts('docs/demo.md', 'The timeline')[0] ?? ''));
    });

    it('shows the resolved chains the demo prints with --explain', () => {
      expect(runTypeScript('examples/demo.ts', '--explain')).toBe(texts('docs/demo.md', 'Resolved chains')[0]);
    });

    it('shows the human-in-the-loop run across two processes the demo prints with --hitl', () => {
      expect(runTypeScript('examples/demo.ts', '--hitl')).toBe(texts('docs/demo.md', 'A human approval across two processes')[0]);
    });

    it('shows the compaction and the sub-agent the demo prints with --long', () => {
      expect(runTypeScript('examples/demo.ts', '--long')).toBe(texts('docs/demo.md', 'Compaction and a sub-agent')[0]);
    });
  });

  describe('middleware.md', () => {
    it('shows the type-checked examples/shared-stores.ts, which npm run test:integration runs against Redis', () => {
      expect(firstTs('docs/middleware.md', 'Shared stores for many processes')).toBe(shown('examples/shared-stores.ts'));
    });

    it('shows the type-checked examples/tracing.ts', () => {
      expect(firstTs('docs/middleware.md', 'Tracing with OpenTelemetry')).toBe(shown('examples/tracing.ts'));
    });

    it('shows the span tree examples/tracing-tree.ts prints', () => {
      expect(runTypeScript('examples/tracing-tree.ts')).toBe(texts('docs/middleware.md', 'Tracing with OpenTelemetry')[0]);
    });
  });

  describe('agent-kit.md', () => {
    it.each([
      ['Turn control', 'examples/turn-control.ts'],
      ['Errors as answers', 'examples/errors-as-answers.ts'],
      ['Asking a human, and tools the caller runs', 'examples/agent-interrupts.ts'],
      ['Durable runs', 'examples/durable-runs.ts'],
      ['What handlers see of the agent', 'examples/agent-view.ts'],
      ['Agent middleware', 'examples/agent-middleware.ts'],
    ])('shows in "%s" the type-checked and tested %s', (section, file) => {
      expect(firstTs('docs/agent-kit.md', section)).toBe(shown(file));
    });
  });

  describe('performance.md', () => {
    it('shows every figure of bench/results.json with its measured ratio and verdict', () => {
      const results = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) as {
        figures: Record<string, { ratio: number; detail: { pass: boolean } }>;
      };
      const section = markdownSection('docs/performance.md', 'The figures');
      const rows = Object.entries(results.figures).map(([name, figure]) => {
        const row = section.split('\n').find((line) => line.startsWith(`| \`${name}\` |`)) ?? '';
        const ratio = figure.ratio >= 0.01 ? figure.ratio.toFixed(3) : String(figure.ratio);
        return { name, hasRatio: row.includes(`| ${ratio}`), verdict: row.trim().endsWith(figure.detail.pass ? '| yes |' : '| no |') };
      });
      expect(rows).toEqual(Object.keys(results.figures).map((name) => ({ name, hasRatio: true, verdict: true })));
    });
  });

  describe('errors.md', () => {
    it('is the table npm run docs:errors generates from the error tables', () => {
      const page = readFileSync(join(root, 'docs/errors.md'), 'utf8');
      const spec = readFileSync(join(root, 'spec/SPEC.md'), 'utf8');
      expect(withErrorCodesTable(page, errorCodesTable(spec))).toBe(page);
    });
  });

  describe('links', () => {
    /** The anchors GitHub gives the headings of a Markdown text. */
    const anchorsOf = (text: string): Set<string> =>
      new Set(
        [...text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)].map(
          (match) =>
            `#${(match[1] as string)
              .toLowerCase()
              .replace(/[^\p{L}\p{N}\s_-]/gu, '')
              .trim()
              .replace(/\s/g, '-')}`,
        ),
      );
    const published = 'https://unpkg.com/staged-middleware@';

    it('of every page lead to files of the repository and to headings they have', () => {
      const broken = docsPages().flatMap((page) => {
        const text = readFileSync(join(root, page), 'utf8');
        const links = [...text.replace(/```[\s\S]*?```/g, '').matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
        return links.flatMap((link) => {
          if (/^[a-z]+:/i.test(link) && !link.startsWith(published)) return [];
          const [path = '', anchor] = link.startsWith(published)
            ? link
                .slice(published.length)
                .replace(/^[^/]*\//, '')
                .split('#')
            : link.split('#');
          const target = path === '' ? join(root, page) : link.startsWith(published) ? join(root, path) : join(root, dirname(page), path);
          if (!existsSync(target)) return [`${page}: ${link}`];
          if (anchor === undefined || !target.endsWith('.md')) return [];
          return anchorsOf(readFileSync(target, 'utf8')).has(`#${anchor}`) ? [] : [`${page}: ${link}`];
        });
      });
      expect([docsPages().length > 5, broken]).toEqual([true, []]);
    });

    it('from the README reach every page', () => {
      const linked = [...readme.matchAll(/\]\(https:\/\/unpkg\.com\/staged-middleware@[^/]+\/(docs\/[^)#\s]+)/g)].map((match) => match[1]);
      expect(docsPages().filter((page) => page !== 'docs/README.md' && !linked.includes(page))).toEqual([]);
    });
  });
});
