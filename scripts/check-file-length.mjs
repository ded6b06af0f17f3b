// `npm run lint` runs this last: it warns about every code file git tracks that is longer than 400 lines, a prompt to
// look for a second concept in it. It never fails: a cohesive file (one class, one table, one algorithm) stays whole
// whatever its length, and is not cut in two to satisfy a counter. Code files are those ending in .ts, .mts, .cts, .js, .mjs or .cjs (type tests, *.test-d.ts,
// included); generated files (the API reports, api/*.api.md, and the JSON Schemas, spec/*.schema.json) and prose are
// not code and are not counted. `node scripts/check-file-length.mjs [file...]` checks the files given instead of the
// tracked ones. No dependencies: it runs before anything is built.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The length past which a code file is worth a second look. */
const LIMIT = 400;
/** What a code file's name ends with. */
const CODE = /\.(?:ts|mts|cts|js|mjs|cjs)$/;

/** The lines of a text: its newline characters, plus one for a last line without a newline. */
function lineCount(text) {
  let lines = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++;
  return text.length > 0 && !text.endsWith('\n') ? lines + 1 : lines;
}

/** The files git tracks, as paths relative to the current directory. */
function trackedFiles() {
  return execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((path) => path !== '');
}

const given = process.argv.slice(2);
const long = [];
for (const path of given.length > 0 ? given : trackedFiles()) {
  if (!CODE.test(path)) continue;
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    // A file deleted but not yet staged is still listed by git: it has no lines to count.
    if (error.code === 'ENOENT') continue;
    throw error;
  }
  const lines = lineCount(text);
  if (lines > LIMIT) long.push({ path, lines });
}

if (long.length > 0) {
  long.sort((first, second) => second.lines - first.lines || first.path.localeCompare(second.path));
  console.warn(
    `warning: ${long.length} code file(s) over ${LIMIT} lines; if one holds a second concept, give it a file of its own (see CONTRIBUTING.md, Style):`,
  );
  for (const { path, lines } of long) console.warn(`  ${path}: ${lines} lines`);
}
