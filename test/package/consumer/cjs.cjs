'use strict';
// The CommonJS build alone, loaded as a CommonJS consumer loads it: prints what observe.cjs observes, as JSON.
const { ENTRY_POINTS, observe } = require('./observe.cjs');

const kit = Object.fromEntries(
  ENTRY_POINTS.map((entry) => [entry, require(entry === '.' ? 'staged-middleware' : `staged-middleware${entry.slice(1)}`)]),
);
observe(kit).then((observed) => console.log(JSON.stringify(observed)));
