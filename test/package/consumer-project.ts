/**
 * A scratch consumer project with the packed package installed, as a user
 * gets it: `npm pack` of the current `dist/`, then `npm install` of the
 * tarball into a new project in the system's temp directory.
 *
 * Why the dependencies are linked from the repository's `node_modules`
 * before the install: `npm install --offline` can only resolve a dependency
 * whose registry metadata is in the npm cache, and `npm ci` caches tarballs,
 * not metadata. A dependency that is already present at a version its range takes
 * needs no resolution, so the install works with no network at all.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from '../readme-blocks';
import { transpile } from './transpile';

/** The consumer scripts copied into the project (`test/package/consumer/`). */
const scriptsDirectory = join(import.meta.dirname, 'consumer');

/** A consumer project with the package installed. */
export interface ConsumerProject {
  /** The project's directory; `staged-middleware` resolves from it. */
  readonly directory: string;
  /** Removes the project and the tarball. */
  readonly remove: () => void;
}

interface PackageJson {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
}

/** Runs npm with the arguments given, failing with npm's own output. */
function npm(args: readonly string[], cwd: string): string {
  // The outer `npm test` exports its own package and lifecycle variables; the
  // nested npm must act on the consumer project only.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_(package|lifecycle)_/.test(key) && key !== 'npm_config_local_prefix'),
  );
  const windows = process.platform === 'win32';
  try {
    return execFileSync(windows ? 'npm.cmd' : 'npm', args, {
      cwd,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: windows,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${stderr ?? ''}${stdout ?? ''}`);
  }
}

/** The newest modification time of the files under `directory`. */
function newest(directory: string): number {
  let latest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/** Fails unless `dist/` exists and was built after the last change to `src/`, `conformance/` or the cases of `spec/cases/`. */
function checkBuild(): void {
  const built = join(root, 'dist', 'index.js');
  if (!existsSync(built))
    throw new Error('dist/ is missing: run `npm run build` first (`npm test` and `npm run test:package` build before this tier).');
  if (
    Math.max(newest(join(root, 'src')), newest(join(root, 'conformance')), newest(join(root, 'spec', 'cases'))) > statSync(built).mtimeMs
  ) {
    throw new Error('dist/ is older than its sources: run `npm run build` first, or the tier would test a stale build.');
  }
}

/** Whether `version` is within `range`, a caret range (`^4.2.0`: 4.2.0 or later, before 5), the form the package's dependencies take. */
function withinCaretRange(version: string, range: string): boolean {
  const parse = (text: string): number[] => text.split('.').map(Number);
  if (!/^\^\d+\.\d+\.\d+$/.test(range)) throw new Error(`The dependency range ${range} is no caret range (^major.minor.patch)`);
  const [lowest, present] = [parse(range.slice(1)), parse(version)];
  if (present.length !== 3 || present.some(Number.isNaN) || present[0] !== lowest[0]) return false;
  for (let index = 1; index < 3; index++) {
    if ((present[index] as number) !== (lowest[index] as number)) return (present[index] as number) > (lowest[index] as number);
  }
  return true;
}

/**
 * Links each dependency of the package from the repository's `node_modules`
 * into the project, after checking it is a version the package's range takes.
 */
function linkDependencies(manifest: PackageJson, modules: string): void {
  for (const [name, wanted] of Object.entries(manifest.dependencies ?? {})) {
    const source = join(root, 'node_modules', name);
    const present = existsSync(join(source, 'package.json'))
      ? (JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { version: string }).version
      : undefined;
    if (present === undefined || !withinCaretRange(present, wanted)) {
      throw new Error(
        `The package depends on ${name}@${wanted}, but node_modules/${name} is ${present ?? 'missing'}: run \`npm ci\` first.`,
      );
    }
    mkdirSync(join(modules, name, '..'), { recursive: true });
    symlinkSync(source, join(modules, name), 'junction');
  }
}

/**
 * Packs `dist/`, installs the tarball into a new consumer project and puts
 * the consumer scripts of `test/package/consumer/` into it, with the
 * reliability runner's `second-copy` scenario as `second-copy.cjs` and its
 * `bare-realm` scenario as `bare-realm.mjs`.
 */
export function createConsumerProject(): ConsumerProject {
  checkBuild();
  const scratch = mkdtempSync(join(tmpdir(), 'staged-middleware-package-'));
  const remove = (): void => {
    rmSync(scratch, { recursive: true, force: true });
  };
  try {
    const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', scratch], root)) as { filename: string }[];
    if (packed === undefined) throw new Error('npm pack produced no tarball');
    const directory = join(scratch, 'consumer');
    mkdirSync(join(directory, 'node_modules'), { recursive: true });
    writeFileSync(join(directory, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true }, null, 2)}\n`);
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
    linkDependencies(manifest, join(directory, 'node_modules'));
    npm(
      ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', directory, join(scratch, packed.filename)],
      directory,
    );
    if (!existsSync(join(directory, 'node_modules', manifest.name, 'package.json')))
      throw new Error(`npm install left no node_modules/${manifest.name} in ${directory}`);
    for (const script of readdirSync(scriptsDirectory))
      writeFileSync(join(directory, script), readFileSync(join(scriptsDirectory, script)));
    // The second-copy scenario of the reliability cases, run on both builds by both-builds.cjs.
    writeFileSync(
      join(directory, 'second-copy.cjs'),
      transpile(readFileSync(join(root, 'conformance', 'reliability', 'second-copy.ts'), 'utf8'), 'cjs'),
    );
    // The bare-realm scenario, run on the ESM build by edge.mjs (and in Chromium by the integration tier).
    writeFileSync(
      join(directory, 'bare-realm.mjs'),
      transpile(readFileSync(join(root, 'conformance', 'reliability', 'bare-realm.ts'), 'utf8'), 'esm'),
    );
    return { directory, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
