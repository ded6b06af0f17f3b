/**
 * The `bare-realm` reliability cases (MW-204) in real headless Chromium: the
 * packed package, installed as users install it, served unbundled with its
 * dependencies from a loopback HTTP server and loaded through an import map,
 * with no bundler and no `process`. Chromium is Debian's (`/usr/bin/chromium`),
 * driven by `playwright-core`, which downloads no browser.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumerProject, type ConsumerProject } from '../package/consumer-project';
import { root } from '../readme-blocks';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const cases = readdirSync(join(root, 'spec', 'cases'))
  .map(
    (file) =>
      JSON.parse(readFileSync(join(root, 'spec', 'cases', file), 'utf8')) as {
        id: string;
        kind: string;
        scenario?: string;
        expect: unknown;
      },
  )
  .filter((testCase) => testCase.kind === 'reliability' && testCase.scenario === 'bare-realm');

/** What a package's "exports" give an ES module importer in a browser, per subpath. */
function browserExports(directory: string, name: string): Record<string, string> {
  const { exports } = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { exports: unknown };
  const pick = (target: unknown): string | undefined => {
    if (typeof target === 'string') return target;
    if (target === null || typeof target !== 'object') return undefined;
    for (const [condition, value] of Object.entries(target)) if (['browser', 'import', 'default'].includes(condition)) return pick(value);
    return undefined;
  };
  const subpaths =
    typeof exports === 'object' && exports !== null && Object.keys(exports).some((key) => key.startsWith('.'))
      ? (exports as Record<string, unknown>)
      : { '.': exports };
  const map: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(subpaths)) {
    const file = pick(target);
    if (file !== undefined && !subpath.includes('*') && /\.m?js$/.test(file))
      map[`${name}${subpath.slice(1)}`] = `/modules/${name}/${file.replace(/^\.\//, '')}`;
  }
  return map;
}

/** The page: the import map, a snapshot of the global object's keys, then the scenario as an ES module. */
function page(imports: Record<string, string>): string {
  return `<!doctype html>
<meta charset="utf-8">
<title>bare-realm</title>
<script>window.keysBefore = Reflect.ownKeys(globalThis).map(String);</script>
<script type="importmap">${JSON.stringify({ imports })}</script>
<script type="module">
import * as core from 'staged-middleware';
import * as agent from 'staged-middleware/agent';
import * as middleware from 'staged-middleware/middleware';
import * as testing from 'staged-middleware/testing';
import { bareRealm } from '/bare-realm.mjs';
try {
  const observed = await bareRealm({ core, agent, middleware, testing });
  const before = new Set([...window.keysBefore, 'keysBefore', 'outcome']);
  window.outcome = { ...observed, globals: Reflect.ownKeys(globalThis).map(String).filter((key) => !before.has(key)).sort() };
} catch (error) {
  window.outcome = { failed: String(error && error.stack || error) };
}
</script>`;
}

let project: ConsumerProject;
let server: Server;
let origin: string;
let userData: string;
let browser: BrowserContext;
const served: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run installs it when missing).`);
  project = createConsumerProject();
  const modules = join(project.directory, 'node_modules');
  const imports = {
    ...browserExports(join(modules, 'staged-middleware'), 'staged-middleware'),
    ...browserExports(join(modules, 'zod'), 'zod'),
  };
  const html = page(imports);
  server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    served.push(path);
    const file =
      path === '/bare-realm.mjs'
        ? join(project.directory, 'bare-realm.mjs')
        : path.startsWith('/modules/')
          ? normalize(join(modules, path.slice('/modules/'.length)))
          : undefined;
    if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    } else if (path === '/favicon.ico') {
      // Asked for by every page; an empty answer keeps a 404 out of the console.
      response.writeHead(204).end();
    } else if (file !== undefined && file.startsWith(project.directory + sep) && existsSync(file) && statSync(file).isFile()) {
      response
        .writeHead(200, {
          'content-type': ['.js', '.mjs'].includes(extname(file)) ? 'text/javascript; charset=utf-8' : 'application/octet-stream',
        })
        .end(readFileSync(file));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  userData = mkdtempSync(join(tmpdir(), 'staged-middleware-chromium-'));
  browser = await chromium.launchPersistentContext(userData, { executablePath: CHROMIUM, headless: true, args: FLAGS });
});

afterAll(async () => {
  // What beforeAll set up before it failed, if it did.
  const started = { browser, server, userData, project } as Partial<{
    browser: BrowserContext;
    server: Server;
    userData: string;
    project: ConsumerProject;
  }>;
  await started.browser?.close();
  await new Promise((resolve) => {
    if (started.server === undefined) resolve(undefined);
    else started.server.close(resolve);
  });
  if (started.userData !== undefined) rmSync(started.userData, { recursive: true, force: true });
  started.project?.remove();
});

describe('the installed package in headless Chromium, unbundled', () => {
  it('has bare-realm cases to run', () => {
    expect(cases.length).toBeGreaterThanOrEqual(1);
  });

  it.each(cases.map((testCase) => [testCase.id, testCase] as const))(
    'passes %s, loading its ESM build through an import map',
    async (_id, testCase) => {
      const tab = await browser.newPage();
      const problems: string[] = [];
      tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      tab.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
      });
      tab.on('response', (response) => {
        if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
      });
      // A module that fails to load ends the page's script with a page error, and no outcome ever comes.
      const failed = new Promise<string>((resolve) =>
        tab.once('pageerror', (error) => {
          resolve(`page error: ${error.message}`);
        }),
      );
      await tab.goto(`${origin}/`);
      const outcome = await Promise.race([
        tab
          .waitForFunction(() => (window as unknown as { outcome?: unknown }).outcome !== undefined, undefined, { timeout: 30_000 })
          .then(() => tab.evaluate(() => (window as unknown as { outcome: unknown }).outcome)),
        failed,
      ]);
      await tab.close();
      expect([outcome, problems]).toEqual([testCase.expect, []]);
      // Served from the installed package: its own files only, no other package's (immer is built in).
      expect(served.filter((path) => path.startsWith('/modules/') && !path.startsWith('/modules/staged-middleware/'))).toEqual([]);
      expect(served).toContain('/modules/staged-middleware/dist/agent/index.js');
    },
  );
});
