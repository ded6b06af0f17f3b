'use strict';
// Loads the CommonJS build, then the ESM build, and prints what both-builds.cjs observes, as JSON.
const cjs = {
  core: require('staged-middleware'),
  agent: require('staged-middleware/agent'),
  middleware: require('staged-middleware/middleware'),
  testing: require('staged-middleware/testing'),
};
const { observeBothBuilds } = require('./both-builds.cjs');

async function main() {
  const esm = {
    core: await import('staged-middleware'),
    agent: await import('staged-middleware/agent'),
    middleware: await import('staged-middleware/middleware'),
    testing: await import('staged-middleware/testing'),
  };
  console.log(JSON.stringify(await observeBothBuilds('cjs', { esm, cjs })));
}

main();
