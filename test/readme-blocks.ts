/**
 * Reading the sections and fenced code blocks of the README and of the pages
 * of `docs/`, shared by the tests that run their code against `src/`
 * (`readme.test.ts`, `docs/pages.test.ts`) and against the installed package
 * (`package/quick-start.test.ts`).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root directory. */
export const root = resolve(import.meta.dirname, '..');

/** The README's text. */
export const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The text of one `## <section>` of a Markdown file (relative to the root), up to the next `## ` heading. */
export function markdownSection(file: string, section: string): string {
  const text = file === 'README.md' ? readme : readFileSync(join(root, file), 'utf8');
  const start = text.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`${file} has no section "${section}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The fenced blocks of one `## <section>` of a Markdown file, in order. */
export function sectionBlocks(file: string, section: string): { lang: string; body: string }[] {
  return [...markdownSection(file, section).matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((match) => ({
    lang: match[1] ?? '',
    body: match[2] ?? '',
  }));
}

/** The text of one `## <section>` of the README, up to the next `## ` heading. */
export function readmeSection(section: string): string {
  return markdownSection('README.md', section);
}

/** The fenced blocks of one README section, in order. */
export function blocks(section: string): { lang: string; body: string }[] {
  return sectionBlocks('README.md', section);
}

/** The quick start: its first `ts` block (importing from 'staged-middleware') and the `text` block of what it prints. */
export function quickStart(): { code: string; printed: string } {
  const [code, printed] = blocks('Quick start').filter((block) => block.lang === 'ts' || block.lang === 'text');
  if (code?.lang !== 'ts' || printed?.lang !== 'text')
    throw new Error('README "Quick start" must have a ts block followed by the text block of what it prints');
  return { code: code.body, printed: printed.body };
}
