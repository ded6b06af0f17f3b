/**
 * `npm run docs:examples` (run by `npm run format` last): copies the examples the README shows into its code blocks,
 * from their first import on, with the imports of `src/` written as the package's entry points. Prettier formats
 * the examples but not the Markdown, so a formatted example would otherwise differ from its block;
 * `test/readme.test.ts` fails while one does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One README code block that shows a file of the repository. */
interface ShownExample {
  /** The heading line the block follows (its first `ts` block after the heading). */
  readonly heading: string;
  /** The file shown, relative to the repository. */
  readonly file: string;
  /** Where the shown part starts; the whole file when absent. */
  readonly from?: string;
}

/** Every block the README shows a file in, as `test/readme.test.ts` compares them. */
const SHOWN: readonly ShownExample[] = [
  { heading: '## Quick start', file: 'examples/quick-start.ts' },
  { heading: '## Embedding stages in your own loop', file: 'examples/own-loop.ts', from: 'import ' },
  { heading: '### Shared stores for many processes', file: 'examples/shared-stores.ts', from: 'import ' },
  { heading: '### Tracing with OpenTelemetry', file: 'examples/tracing.ts', from: 'import ' },
  { heading: '## Turn control', file: 'examples/turn-control.ts', from: 'import ' },
  { heading: '## Errors as answers', file: 'examples/errors-as-answers.ts', from: 'import ' },
  { heading: '## Asking a human, and tools the caller runs', file: 'examples/agent-interrupts.ts', from: 'import ' },
  { heading: '## Durable runs', file: 'examples/durable-runs.ts', from: 'import ' },
  { heading: '## What handlers see of the agent', file: 'examples/agent-view.ts', from: 'import ' },
  { heading: '## Agent middleware', file: 'examples/agent-middleware.ts', from: 'import ' },
  { heading: '## Testing middleware', file: 'test/testing/readme-example.test.ts', from: 'import { describe' },
];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The part of a file the README shows, importing the package instead of `src/`. */
function shownCode(text: string, from: string | undefined): string {
  const start = from === undefined ? 0 : text.indexOf(from);
  if (start < 0) throw new Error(`the example has no "${from ?? ''}" to start from`);
  return text
    .slice(start)
    .replace(/from '(?:\.\.\/)+src\/core\/index'/g, "from 'staged-middleware'")
    .replace(/from '(?:\.\.\/)+src\/(\w+)\/index'/g, "from 'staged-middleware/$1'");
}

/** The README with the first `ts` block after each heading replaced by the code it shows. */
function withExamples(readme: string, read: (file: string) => string): string {
  let text = readme;
  for (const { heading, file, from } of SHOWN) {
    const at = text.indexOf(`\n${heading}\n`);
    const open = at < 0 ? -1 : text.indexOf('```ts\n', at);
    const close = open < 0 ? -1 : text.indexOf('```', open + 6);
    if (close < 0) throw new Error(`README.md has no ts block after "${heading}" for ${file}.`);
    text = text.slice(0, open + 6) + shownCode(read(file), from) + text.slice(close);
  }
  return text;
}

const readme = join(ROOT, 'README.md');
const before = readFileSync(readme, 'utf8');
const after = withExamples(before, (file) => readFileSync(join(ROOT, file), 'utf8'));
if (after !== before) writeFileSync(readme, after);
process.stdout.write(`README.md: ${after === before ? 'its examples were already' : 'examples copied,'} as the files show them.\n`);
