'use strict';
/**
 * Both builds of the installed package in one process (MW-200, MW-201):
 * runs the `second-copy` conformance cases the package ships with the build
 * loaded first as the first copy and the other build as the second, and
 * checks that middleware, script steps and results made by one build work in
 * a registry of the other.
 *
 * Shared by `esm-then-cjs.mjs` and `cjs-then-esm.cjs`, which load the builds
 * in the two orders and pass them in.
 */
const { secondCopy } = require('./second-copy.cjs');

/** The `second-copy` reliability cases the installed package ships (`staged-middleware/conformance/cases.json`). */
function secondCopyCases() {
  return require('staged-middleware/conformance/cases.json').filter(
    (testCase) => testCase.kind === 'reliability' && testCase.scenario === 'second-copy',
  );
}

/** A registry of `host` running `retry` and a script step of `guest`, and an Output handler returning `guest`'s result. */
async function mixed(host, guest) {
  const stage = host.core.createStage('mixed');
  const registry = new host.core.MiddlewareRegistry();
  registry.add(stage.Wrap, guest.middleware.retry({ attempts: 2, backoff: () => 0 }));
  registry.add(stage.Output, (result) => new guest.core.MiddlewareResult(String(result.value).toUpperCase()));
  const terminal = host.testing.scriptedTerminal([[guest.testing.throws(new Error('flaky'))], ['ok']]);
  try {
    return { result: await registry.run(stage, {}, terminal), terminalCalls: terminal.calls.length };
  } catch (error) {
    return { error: String(error), terminalCalls: terminal.calls.length };
  }
}

/** The names of the spans, in the order they end, of an agent run of `host` traced by `guest`'s tracing and span conventions (MW-190, MW-192). */
async function traced(host, guest) {
  const ended = [];
  const tracer = {
    startSpan: (name) => ({
      isRecording: () => true,
      setAttribute: () => undefined,
      setAttributes: () => undefined,
      addEvent: () => undefined,
      recordException: () => undefined,
      setStatus: () => undefined,
      end: () => void ended.push(name),
    }),
  };
  const registry = new host.core.MiddlewareRegistry();
  registry.instrument(guest.middleware.tracing({ tracer, conventions: [guest.agent.genAiSpans] }));
  const model = new host.testing.ScriptedModel([host.testing.textTurn('Hi.')]);
  await new host.agent.Agent({ name: 'greeter', model, registry }).invoke('Hello');
  return ended;
}

/** What this file observes with `first` loaded before `second`. */
async function observeBothBuilds(loadedFirst, builds) {
  const first = builds[loadedFirst];
  const second = builds[loadedFirst === 'esm' ? 'cjs' : 'esm'];
  const copies = {
    first: { core: first.core, agent: first.agent, testing: first.testing },
    second: { core: second.core, agent: second.agent, testing: second.testing },
  };
  const cases = {};
  for (const testCase of secondCopyCases()) cases[testCase.id] = await secondCopy(testCase, copies);
  return {
    loadedFirst,
    twoBuilds:
      builds.esm.agent.Agent !== builds.cjs.agent.Agent && builds.esm.core.MiddlewareRegistry !== builds.cjs.core.MiddlewareRegistry,
    sameTurnStage: builds.esm.agent.TurnStage === builds.cjs.agent.TurnStage && builds.esm.core.isStage(builds.cjs.agent.TurnStage),
    cases,
    mixed: {
      'esm registry, cjs middleware': await mixed(builds.esm, builds.cjs),
      'cjs registry, esm middleware': await mixed(builds.cjs, builds.esm),
    },
    traced: {
      'esm agent, cjs tracing': await traced(builds.esm, builds.cjs),
      'cjs agent, esm tracing': await traced(builds.cjs, builds.esm),
    },
  };
}

module.exports = { observeBothBuilds };
