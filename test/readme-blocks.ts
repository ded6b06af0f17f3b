/**
 * Reading the README's sections and fenced code blocks, shared by the tests
 * that run the README's code against `src/` (`readme.test.ts`) and against
 * the installed package (`package/quick-start.test.ts`).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root directory. */
export const root = resolve(import.meta.dirname, '..');

/** The README's text. */
export const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The text of one `## <section>` of the README, up to the next `## ` heading. */
export function readmeSection(section: string): string {
  const start = readme.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`README has no section "${section}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The fenced blocks of one README section, in order. */
export function blocks(section: string): { lang: string; body: string }[] {
  return [...readmeSection(section).matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((match) => ({ lang: match[1] ?? '', body: match[2] ?? '' }));
}

/** The quick start: its first `ts` block (importing from 'staged-middleware') and the `text` block of what it prints. */
export function quickStart(): { code: string; printed: string } {
  const [code, printed] = blocks('Quick start').filter((block) => block.lang === 'ts' || block.lang === 'text');
  if (code?.lang !== 'ts' || printed?.lang !== 'text')
    throw new Error('README "Quick start" must have a ts block followed by the text block of what it prints');
  return { code: code.body, printed: printed.body };
}
