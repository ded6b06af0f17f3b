/**
 * The TypeScript code of the documentation, gathered for type-checking:
 * every ```ts block of the Markdown files and every `@example` of `src/`.
 * Conventions a block may rely on are in `test/docs/prelude.d.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root } from '../readme-blocks';

/** One fenced TypeScript block and where it comes from. */
export interface CodeBlock {
  /** The file it is in, relative to the repository root. */
  readonly file: string;
  /** The 1-based line of the block's first code line in that file. */
  readonly line: number;
  /** The code. */
  readonly code: string;
  /** True for a block fenced ```ts nocheck (not type-checked; the text next to it says why). */
  readonly nocheck: boolean;
}

/** The Markdown files of `docs/`, its folders included, relative to the root. */
export function docsPages(): string[] {
  const walk = (directory: string): string[] =>
    readdirSync(join(root, directory), { withFileTypes: true })
      .flatMap((entry) =>
        entry.isDirectory() ? walk(`${directory}/${entry.name}`) : entry.name.endsWith('.md') ? [`${directory}/${entry.name}`] : [],
      )
      .sort();
  return walk('docs');
}

/** The Markdown files whose TypeScript blocks are type-checked. */
export const markdownFiles = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'bench/README.md', 'spec/README.md', ...docsPages()];

/** The fenced blocks of a text, with their info string and first code line. */
function fencedBlocks(text: string): { info: string; line: number; body: string }[] {
  return [...text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```/gm)].map((match) => ({
    info: (match[1] ?? '').trim(),
    line: text.slice(0, match.index).split('\n').length + 1,
    body: match[2] ?? '',
  }));
}

/** The ```ts blocks of one Markdown file. */
export function markdownBlocks(file: string): CodeBlock[] {
  const text = readFileSync(join(root, file), 'utf8');
  return fencedBlocks(text)
    .filter((block) => /^ts(\s|$)/.test(block.info))
    .map((block) => ({ file, line: block.line, code: block.body, nocheck: /\bnocheck\b/.test(block.info) }));
}

/** The ```ts blocks of the `@example` tags of one source file. */
export function exampleBlocks(file: string): CodeBlock[] {
  const text = readFileSync(join(root, file), 'utf8');
  const blocks: CodeBlock[] = [];
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const start = text.slice(0, comment.index).split('\n').length;
    // Comment lines without their ` * ` margin, so fences start their lines again.
    const lines = comment[0].split('\n').map((line) => line.replace(/^\s*\/?\*+\/?\s?/, ''));
    let inExample = false;
    let fence: { info: string; line: number; body: string[] } | undefined;
    lines.forEach((line, index) => {
      if (fence !== undefined) {
        if (line.startsWith('```')) {
          if (inExample && /^ts(\s|$)/.test(fence.info))
            blocks.push({ file, line: fence.line, code: fence.body.join('\n') + '\n', nocheck: /\bnocheck\b/.test(fence.info) });
          fence = undefined;
        } else fence.body.push(line);
        return;
      }
      if (line.startsWith('@')) inExample = line.startsWith('@example');
      if (line.startsWith('```')) fence = { info: line.slice(3).trim(), line: start + index + 1, body: [] };
    });
  }
  return blocks;
}

/** Every `.ts` file under `directory`, relative to the root. */
export function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? sourceFiles(join(directory, entry.name))
        : entry.name.endsWith('.ts')
          ? [relative(root, join(directory, entry.name))]
          : [],
    )
    .sort();
}

/** Every TypeScript block of the documentation and the TSDoc examples. */
export function allBlocks(): CodeBlock[] {
  return [
    ...markdownFiles.flatMap(markdownBlocks),
    ...['src', 'conformance'].flatMap((folder) => sourceFiles(join(root, folder))).flatMap(exampleBlocks),
  ];
}
