// Loads the ESM build, then the CommonJS build, and prints what both-builds.cjs observes, as JSON.
import * as core from 'staged-middleware';
import * as agent from 'staged-middleware/agent';
import * as middleware from 'staged-middleware/middleware';
import * as testing from 'staged-middleware/testing';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const esm = { core, agent, middleware, testing };
const cjs = {
  core: require('staged-middleware'),
  agent: require('staged-middleware/agent'),
  middleware: require('staged-middleware/middleware'),
  testing: require('staged-middleware/testing'),
};
const { observeBothBuilds } = require('./both-builds.cjs');
console.log(JSON.stringify(await observeBothBuilds('esm', { esm, cjs })));
