// `npm run lint` runs this after ESLint: the layers of the package, one direction, and no import cycle, types included.
//
//   util  <-  core  <-  middleware  <-  agent  <-  ai-sdk, mcp, durable, testing  <-  conformance, durable-dbos, durable-restate
//
// A file may import from its own layer and the layers below it, never above, and never a sibling (ai-sdk, mcp, durable and
// testing know nothing of each other; durable-dbos, an engine adapter, builds on durable and is the only layer that loads its
// engine). Above the core, a file imports the core through two modules only: its public list
// (`src/core/index.ts`) and its one internal door (`src/core/internal.ts`); the core's other files are its own.
// Imports are read with TypeScript's own pre-processor (`import type` and `export ... from` included); only relative
// imports between the package's files are checked. `node scripts/check-imports.mjs [root]` checks the tree at `root`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const root = resolve(process.argv[2] ?? '.');

/** Each layer: the folder its files live in and its rank (a file imports ranks up to its own, siblings excepted). */
const LAYERS = [
  { name: 'util', folder: 'src/util', rank: 0 },
  { name: 'core', folder: 'src/core', rank: 1 },
  { name: 'middleware', folder: 'src/middleware', rank: 2 },
  { name: 'agent', folder: 'src/agent', rank: 3 },
  { name: 'ai-sdk', folder: 'src/ai-sdk', rank: 4 },
  { name: 'mcp', folder: 'src/mcp', rank: 4 },
  { name: 'durable', folder: 'src/durable', rank: 4 },
  { name: 'testing', folder: 'src/testing', rank: 4 },
  { name: 'conformance', folder: 'conformance', rank: 5 },
  { name: 'durable-dbos', folder: 'src/durable-dbos', rank: 5 },
  { name: 'durable-restate', folder: 'src/durable-restate', rank: 5 },
];
/** The core's modules that the layers above it may import. */
const CORE_DOORS = new Set(['src/core/index.ts', 'src/core/internal.ts']);

/** The path of `file` relative to the root, with forward slashes. */
const posix = (file) => relative(root, file).split(sep).join('/');

/** Every `.ts` file under `folder` (relative to the root), as root-relative paths. */
function files(folder) {
  const directory = join(root, folder);
  let entries;
  try {
    entries = readdirSync(directory, { withFileTypes: true, recursive: true });
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => posix(join(entry.parentPath, entry.name)));
}

/** The layer a root-relative path belongs to, if any. */
function layerOf(path) {
  return LAYERS.find(({ folder }) => path.startsWith(`${folder}/`));
}

/** The file a relative specifier names, as TypeScript's bundler resolution finds it, or undefined. */
function resolveSpecifier(from, specifier) {
  const base = join(root, dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) {
    try {
      if (statSync(candidate).isFile()) return posix(candidate);
    } catch {
      // not this candidate
    }
  }
  return undefined;
}

const sources = LAYERS.flatMap(({ folder }) => files(folder));
/** Each file's imports of the package's own files. */
const graph = new Map();
const problems = [];
for (const file of sources) {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  const targets = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = resolveSpecifier(file, fileName);
    if (target === undefined) continue;
    targets.push(target);
    const from = layerOf(file);
    const to = layerOf(target);
    if (from === undefined || to === undefined || from === to) continue;
    if (to.rank > from.rank || (to.rank === from.rank && to !== from)) {
      problems.push(`${file} imports ${target}: the ${from.name} layer may not import the ${to.name} layer`);
    } else if (to.name === 'core' && !CORE_DOORS.has(target)) {
      problems.push(`${file} imports ${target}: above the core, import src/core/index.ts or src/core/internal.ts`);
    }
  }
  graph.set(file, targets);
}

// Cycles: Tarjan's strongly connected components; every component of more than one file (or a file importing itself)
// is a cycle.
let index = 0;
const indices = new Map();
const lowLinks = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function connect(file) {
  indices.set(file, index);
  lowLinks.set(file, index);
  index++;
  stack.push(file);
  onStack.add(file);
  for (const target of graph.get(file) ?? []) {
    if (!graph.has(target)) continue;
    if (!indices.has(target)) {
      connect(target);
      lowLinks.set(file, Math.min(lowLinks.get(file), lowLinks.get(target)));
    } else if (onStack.has(target)) {
      lowLinks.set(file, Math.min(lowLinks.get(file), indices.get(target)));
    }
  }
  if (lowLinks.get(file) !== indices.get(file)) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    onStack.delete(member);
    component.push(member);
  } while (member !== file);
  if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
}
for (const file of graph.keys()) if (!indices.has(file)) connect(file);
for (const cycle of cycles) problems.push(`import cycle: ${cycle.join(', ')}`);

if (problems.length > 0) {
  console.error(`${problems.length} import problem(s) (see CONTRIBUTING.md, Layers):`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
