// The ESM build alone, loaded as an ESM consumer loads it: prints what observe.cjs observes, as JSON.
import * as core from 'staged-middleware';
import * as agent from 'staged-middleware/agent';
import * as aiSdk from 'staged-middleware/ai-sdk';
import * as mcp from 'staged-middleware/mcp';
import * as durable from 'staged-middleware/durable';
import * as middleware from 'staged-middleware/middleware';
import * as testing from 'staged-middleware/testing';
import * as conformance from 'staged-middleware/conformance';
import * as durableRestate from 'staged-middleware/durable/restate';
import { observe } from './observe.cjs';

console.log(
  JSON.stringify(
    await observe({
      '.': core,
      './agent': agent,
      './ai-sdk': aiSdk,
      './mcp': mcp,
      './durable': durable,
      './middleware': middleware,
      './testing': testing,
      './conformance': conformance,
      './durable/restate': durableRestate,
    }),
  ),
);
