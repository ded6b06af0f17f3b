import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../readme-blocks';
import { allBlocks, type CodeBlock } from './code-blocks';

/** The entry points a block may use names of without importing them, in the order a name is looked up. */
const entryPoints = [
  ['staged-middleware', 'src/core/index.ts'],
  ['staged-middleware/agent', 'src/agent/index.ts'],
  ['staged-middleware/ai-sdk', 'src/ai-sdk/index.ts'],
  ['staged-middleware/mcp', 'src/mcp/index.ts'],
  ['staged-middleware/durable', 'src/durable/index.ts'],
  ['staged-middleware/middleware', 'src/middleware/index.ts'],
  ['staged-middleware/testing', 'src/testing/index.ts'],
  ['staged-middleware/durable', 'src/durable/index.ts'],
  ['staged-middleware/durable/dbos', 'src/durable-dbos/index.ts'],
  ['staged-middleware/conformance', 'conformance/index.ts'],
  ['staged-middleware/durable/restate', 'src/durable-restate/index.ts'],
] as const;

/** The names an entry point exports, read from its export list. */
function exportedNames(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap((match) =>
    (match[1] ?? '')
      .split(',')
      .map(
        (part) =>
          part
            .replace(/^\s*type\s+/, '')
            .trim()
            .split(/\s+as\s+/)
            .at(-1) ?? '',
      )
      .filter((name) => name !== ''),
  );
}

/** The names a source file declares with `export`. */
function ownExports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [
    ...text.matchAll(/^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|type|interface|abstract\s+class)\s+(\w+)/gm),
  ].map((match) => match[1] ?? '');
}

/** Import lines for the package names a block uses but neither imports nor declares. */
function autoImports(code: string, exports: ReadonlyMap<string, string>): string {
  const declared = new Set(
    [...code.matchAll(/\b(?:const|let|var|function\*?|class|type|interface|import\s+type|import)\s+\{?\s*([\w\s,]+)/g)].flatMap((match) =>
      (match[1] ?? '').split(/[\s,]+/),
    ),
  );
  const byModule = new Map<string, string[]>();
  for (const [name, module] of exports) {
    if (declared.has(name) || !new RegExp(`\\b${name}\\b`).test(code)) continue;
    byModule.set(module, [...(byModule.get(module) ?? []), name]);
  }
  return [...byModule].map(([module, names]) => `import { ${names.join(', ')} } from '${module}';`).join('\n');
}

/** A small program with a terminal that yields the wrong events: its one error must name the cause on its first line. */
const wrongTerminal = `import { createStage, MiddlewareRegistry } from 'staged-middleware';
const ReplyStage = createStage<{ prompt: string }, { type: 'done'; text: string }>('reply');
await new MiddlewareRegistry().run(ReplyStage, { prompt: 'hi' }, async function* () {
  yield { type: 'other', text: 'hi' };
});
export {};
`;

describe('documentation code blocks', () => {
  describe('every ts block of the Markdown files and every @example of src/', () => {
    const blocks = allBlocks();
    const checked = blocks.filter((block) => !block.nocheck);
    // Inside the repository so that blocks resolve the dev dependencies they import (immer, keyv, vitest).
    const scratch = join(root, 'node_modules', '.cache', 'doc-blocks');

    function typeCheck(): { block: CodeBlock | 'wrong-terminal'; line: number; message: string }[] {
      rmSync(join(scratch, 'blocks'), { recursive: true, force: true });
      mkdirSync(join(scratch, 'blocks'), { recursive: true });
      const exports = new Map<string, string>();
      // A name the prelude gives the reader's own object (a terminal called callModel) stays the reader's unless the block imports it.
      const prelude = new Set(
        [...readFileSync(join(root, 'test/docs/prelude.d.ts'), 'utf8').matchAll(/^declare (?:const|function|class) (\w+)/gm)].map(
          (match) => match[1],
        ),
      );
      for (const [module, file] of entryPoints)
        for (const name of exportedNames(file)) if (!exports.has(name) && !prelude.has(name)) exports.set(name, module);
      const files = new Map<string, { block: CodeBlock | 'wrong-terminal'; offset: number }>();
      checked.forEach((block, index) => {
        // An @example of a source file may also use what that file exports, internal helpers included.
        const own = block.file.startsWith('src/')
          ? new Map(ownExports(block.file).map((name) => [name, join(root, block.file.replace(/\.ts$/, ''))]))
          : new Map<string, string>();
        const imports = autoImports(block.code, new Map([...own, ...exports]));
        const name = `block-${index}.ts`;
        writeFileSync(join(scratch, 'blocks', name), `${imports}\n${block.code}\nexport {};\n`);
        files.set(name, { block, offset: imports.split('\n').length });
      });
      writeFileSync(join(scratch, 'blocks', 'wrong-terminal.ts'), wrongTerminal);
      files.set('wrong-terminal.ts', { block: 'wrong-terminal', offset: 0 });
      const paths = Object.fromEntries(entryPoints.map(([module, file]) => [module, [join(root, file)]]));
      writeFileSync(
        join(scratch, 'tsconfig.json'),
        JSON.stringify({
          extends: join(root, 'tsconfig.base.json'),
          compilerOptions: {
            // A block imports values and types alike, as users write them; module syntax is not what is checked here.
            verbatimModuleSyntax: false,
            isolatedModules: false,
            types: ['node'],
            typeRoots: [join(root, 'node_modules', '@types')],
            paths,
            incremental: true,
            tsBuildInfoFile: join(scratch, 'tsbuildinfo'),
          },
          files: [join(root, 'test', 'docs', 'prelude.d.ts'), ...[...files.keys()].map((name) => join(scratch, 'blocks', name))],
        }),
      );
      let output = '';
      try {
        execFileSync(
          process.execPath,
          [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(scratch, 'tsconfig.json'), '--pretty', 'false'],
          { encoding: 'utf8' },
        );
      } catch (error) {
        output = String((error as { stdout?: unknown }).stdout ?? error);
      }
      return output
        .split('\n')
        .map((line) => /blocks[\\/]([\w-]+\.ts)\((\d+),\d+\): error (.*)$/.exec(line))
        .flatMap((match) => {
          const origin = match === null ? undefined : files.get(match[1] ?? '');
          if (match === null || origin === undefined) return [];
          const line = Number(match[2]) - origin.offset;
          return [
            { block: origin.block, line: origin.block === 'wrong-terminal' ? line : origin.block.line + line - 1, message: match[3] ?? '' },
          ];
        });
    }

    const errors = typeCheck();

    it('finds the blocks of the README, of docs/ and the @examples', () => {
      expect([
        blocks.filter((block) => block.file === 'README.md').length > 5,
        blocks.filter((block) => block.file === 'docs/agent-kit.md').length > 5,
        blocks.filter((block) => block.file.startsWith('docs/porting/')).length >= 4,
        blocks.filter((block) => block.file.startsWith('src/')).length > 40,
      ]).toEqual([true, true, true, true]);
    });

    it('type-check with the strict options of the project', () => {
      const located = errors.flatMap(({ block, line, message }) =>
        block === 'wrong-terminal' ? [] : [`${block.file}:${line}: ${message}`],
      );
      expect(located).toEqual([]);
    });

    it('report a terminal yielding the wrong events in one line that names the cause', () => {
      const wrong = errors.filter(({ block }) => block === 'wrong-terminal').map(({ line, message }) => ({ line, message }));
      expect(wrong).toEqual([
        {
          line: 3,
          message: `TS2345: Argument of type '() => AsyncGenerator<{ type: "other"; text: string; }, void, any>' is not assignable to parameter of type '"Terminal yields events that are not events of this stage (compare its yields with EventOf<typeof Stage>)"'.`,
        },
      ]);
    });

    it('mark a block that is not type-checked with the reason next to it', () => {
      const unexplained = blocks.filter(
        (block) =>
          block.nocheck &&
          !readFileSync(join(root, block.file), 'utf8')
            .split('\n')
            .slice(Math.max(0, block.line - 5), block.line)
            .join(' ')
            .includes('not type-checked'),
      );
      expect(unexplained).toEqual([]);
    });
  });
});
