/**
 * The DBOS adapter of the installed package (`staged-middleware/durable/dbos`)
 * loads its engine, the optional peer `@dbos-inc/dbos-sdk`, and nothing else
 * does: in an app beside the consumer project that has the SDK (linked from
 * the repository's `node_modules`, its pinned version) and its own copy of
 * the package, both builds export
 * the names of the entry point's API report and refuse a step runner made
 * outside a workflow with a coded error; in the consumer project, which has
 * no SDK, only this entry point fails to load, naming the package to install.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isValue, listedExports, REPORTS } from '../../scripts/api-report';
import { root } from '../readme-blocks';
import { consumer } from './consumer';

/**
 * The app's directory, inside the consumer project: it has its own copy of the installed package, since a package
 * resolves its peers from where it lies, and the consumer project's copy must stay without DBOS.
 */
const app = join(consumer, 'dbos-app');

/** Prints the entry point's run-time export names and what `dbosStepRunner()` throws outside a workflow. */
const observe = (load: string): string => `${load}
const names = Object.keys(dbos).sort();
let refused;
try {
  dbos.dbosStepRunner();
} catch (error) {
  refused = { code: error.code, message: error.message };
}
console.log(JSON.stringify({ names, refused }));
`;

function runIn(directory: string, script: string): { status: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, [script], { cwd: directory, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: 0, stdout, stderr: '' };
  } catch (error) {
    const { status, stdout, stderr } = error as { status: number; stdout: string; stderr: string };
    return { status, stdout, stderr };
  }
}

const expectedNames = listedExports(readFileSync(join(REPORTS, 'durable-dbos.api.md'), 'utf8'))
  .filter((item) => isValue(item.kind))
  .map((item) => item.name)
  .sort();

describe('staged-middleware/durable/dbos, installed', () => {
  beforeAll(() => {
    mkdirSync(join(app, 'node_modules', '@dbos-inc'), { recursive: true });
    cpSync(join(consumer, 'node_modules', 'staged-middleware'), join(app, 'node_modules', 'staged-middleware'), { recursive: true });
    symlinkSync(join(root, 'node_modules', '@dbos-inc', 'dbos-sdk'), join(app, 'node_modules', '@dbos-inc', 'dbos-sdk'), 'junction');
    writeFileSync(join(app, 'observe.mjs'), observe("import * as dbos from 'staged-middleware/durable/dbos';"));
    writeFileSync(join(app, 'observe.cjs'), observe("const dbos = require('staged-middleware/durable/dbos');"));
    writeFileSync(join(consumer, 'dbos-missing.mjs'), "await import('staged-middleware/durable/dbos');\n");
  });

  describe.each(['observe.mjs', 'observe.cjs'])('beside @dbos-inc/dbos-sdk (%s)', (script) => {
    it('exports the names of its API report and refuses a step runner outside a workflow with ERR_INVALID_OPTIONS', () => {
      const { status, stdout, stderr } = runIn(app, script);
      expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
      expect(JSON.parse(stdout)).toEqual({
        names: expectedNames,
        refused: {
          code: 'ERR_INVALID_OPTIONS',
          message:
            '[ERR_INVALID_OPTIONS] dbosStepRunner(): call it inside a DBOS workflow (a function registered with DBOS.registerWorkflow), whose id is the run id, got undefined.',
        },
      });
    });
  });

  describe('without @dbos-inc/dbos-sdk', () => {
    it('fails to load, naming the package to install', () => {
      const { status, stderr } = runIn(consumer, 'dbos-missing.mjs');
      expect({ status, missing: stderr.includes("Cannot find package '@dbos-inc/dbos-sdk'") }).toEqual({ status: 1, missing: true });
    });
  });
});
