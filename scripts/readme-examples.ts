/**
 * `npm run docs:examples` (run by `npm run format` last): copies the examples the README and the pages of `docs/`
 * show into their code blocks, from their first import on, with the imports of `src/` written as the package's entry
 * points. Prettier formats the examples but not the Markdown, so a formatted example would otherwise differ from its
 * block; `test/readme.test.ts` and `test/docs/pages.test.ts` fail while one does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One code block of the documentation that shows a file of the repository. */
interface ShownExample {
  /** The Markdown file the block is in, relative to the repository. */
  readonly page: string;
  /** The heading line the block follows (its first `ts` block after the heading). */
  readonly heading: string;
  /** The file shown, relative to the repository. */
  readonly file: string;
  /** Where the shown part starts; the whole file when absent. */
  readonly from?: string;
}

/** Every block the documentation shows a file in, as the tests compare them. */
const SHOWN: readonly ShownExample[] = [
  { page: 'README.md', heading: '## Quick start', file: 'examples/quick-start.ts' },
  { page: 'README.md', heading: '## Embedding stages in your own loop', file: 'examples/own-loop.ts', from: 'import ' },
  { page: 'README.md', heading: '## Running on the Vercel AI SDK', file: 'examples/ai-sdk.ts', from: 'import ' },
  { page: 'README.md', heading: "### The registry inside the AI SDK's own loop", file: 'examples/ai-sdk-stream-text.ts', from: 'import ' },
  { page: 'README.md', heading: '## Testing middleware', file: 'test/testing/readme-example.test.ts', from: 'import { describe' },
  { page: 'docs/middleware.md', heading: '## Shared stores for many processes', file: 'examples/shared-stores.ts', from: 'import ' },
  { page: 'docs/middleware.md', heading: '## Tracing with OpenTelemetry', file: 'examples/tracing.ts', from: 'import ' },
  { page: 'docs/agent-kit.md', heading: '## Turn control', file: 'examples/turn-control.ts', from: 'import ' },
  { page: 'docs/agent-kit.md', heading: '## Errors as answers', file: 'examples/errors-as-answers.ts', from: 'import ' },
  {
    page: 'docs/agent-kit.md',
    heading: '## Asking a human, and tools the caller runs',
    file: 'examples/agent-interrupts.ts',
    from: 'import ',
  },
  { page: 'docs/agent-kit.md', heading: '## Durable runs', file: 'examples/durable-runs.ts', from: 'import ' },
  { page: 'docs/agent-kit.md', heading: '## What handlers see of the agent', file: 'examples/agent-view.ts', from: 'import ' },
  { page: 'docs/agent-kit.md', heading: '## Agent middleware', file: 'examples/agent-middleware.ts', from: 'import ' },
  { page: 'docs/agent-kit.md', heading: '## One object per concern', file: 'examples/call-limit.ts', from: 'import ' },
];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The part of a file the documentation shows, importing the package instead of `src/`. */
function shownCode(text: string, from: string | undefined): string {
  const start = from === undefined ? 0 : text.indexOf(from);
  if (start < 0) throw new Error(`the example has no "${from ?? ''}" to start from`);
  return text
    .slice(start)
    .replace(/from '(?:\.\.\/)+src\/core\/index'/g, "from 'staged-middleware'")
    .replace(/from '(?:\.\.\/)+src\/([\w-]+)\/index'/g, "from 'staged-middleware/$1'");
}

/** A page with the first `ts` block after each of its headings replaced by the code it shows. */
function withExamples(page: string, text: string, read: (file: string) => string): string {
  let result = text;
  for (const { heading, file, from } of SHOWN.filter((shown) => shown.page === page)) {
    const at = result.indexOf(`\n${heading}\n`);
    const open = at < 0 ? -1 : result.indexOf('```ts\n', at);
    const close = open < 0 ? -1 : result.indexOf('```', open + 6);
    if (close < 0) throw new Error(`${page} has no ts block after "${heading}" for ${file}.`);
    result = result.slice(0, open + 6) + shownCode(read(file), from) + result.slice(close);
  }
  return result;
}

for (const page of new Set(SHOWN.map((shown) => shown.page))) {
  const path = join(ROOT, page);
  const before = readFileSync(path, 'utf8');
  const after = withExamples(page, before, (file) => readFileSync(join(ROOT, file), 'utf8'));
  if (after !== before) writeFileSync(path, after);
  process.stdout.write(`${page}: ${after === before ? 'its examples were already' : 'examples copied,'} as the files show them.\n`);
}
