// CubePi's hook details on the ESM build: the scenario of cubepi-hooks.cjs, given the ESM entry points.
import { createRequire } from 'node:module';
import * as core from 'staged-middleware';
import * as agentKit from 'staged-middleware/agent';
import * as testing from 'staged-middleware/testing';

const { run } = createRequire(import.meta.url)('./cubepi-hooks.cjs');
console.log(JSON.stringify(await run({ core, agentKit, testing })));
