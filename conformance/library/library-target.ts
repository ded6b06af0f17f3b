import type { AgentLoopAdapter } from '../agent/adapter';
import { observeAgentCase } from '../agent/observe-agent-case';
import { referenceAgentAdapter } from '../agent/reference-adapter';
import { PROTOCOL_VERSION, type Claims, type ProtocolRequest, type RequestOf } from '../protocol/messages';
import { providedScenarios, runScenario, type LibraryHost } from '../reliability/scenarios';
import type { ConformanceTarget } from '../runner/target';
import { builtins } from './builtins';
import { ChainSession } from './chain-session';

/** Options of {@link libraryTarget}. */
export interface LibraryTargetOptions {
  /** What the runtime provides to the `abandoned`, `second-copy` and `bare-realm` scenarios. */
  readonly host?: LibraryHost | undefined;
  /** The agent loop the agent cases run on. Default: the reference `Agent`. */
  readonly agentLoop?: AgentLoopAdapter | undefined;
}

/**
 * This library, in this process, as a conformance target: it answers every
 * request of the protocol with the public API of `staged-middleware`, its
 * built-in middleware and its agent kit. It is also what
 * `staged-middleware conformance serve` answers over stdio, the reference
 * for a port's answers.
 *
 * @example
 * ```ts
 * const report = await runConformance(cases, libraryTarget());
 * ```
 */
export function libraryTarget(options: LibraryTargetOptions = {}): ConformanceTarget {
  const host = options.host ?? {};
  const agentLoop = options.agentLoop ?? referenceAgentAdapter;
  const claims: Claims = {
    protocol: PROTOCOL_VERSION,
    name: agentLoop === referenceAgentAdapter ? 'staged-middleware' : `staged-middleware with ${agentLoop.name}`,
    kinds: ['chain', 'reliability', 'agent'],
    builtins: [...builtins.keys()],
    scenarios: providedScenarios(host),
    capabilities: [...agentLoop.capabilities],
  };
  let session: ChainSession | undefined;
  return answering(async (request) => {
    if (request.op === 'hello') return claims;
    if (request.op === 'reliability.run') return { observed: await runScenario(request.case, host) };
    if (request.op === 'agent.run') return { observed: await observeAgentCase(request.case, agentLoop) };
    if (request.op === 'chain.begin') {
      session = new ChainSession();
      return session.begin(request);
    }
    if (session === undefined) throw new Error(`${request.op} came before chain.begin`);
    return chainRequest(session, request);
  });
}

/**
 * An agent loop of your own as a conformance target for the agent cases:
 * each case runs on one session of the adapter, with the scripted model,
 * tools and handlers the case describes; cases needing a capability the
 * adapter does not claim are reported as not claimed.
 *
 * @example
 * ```ts
 * const report = await runConformance(cases, agentLoopTarget(myAdapter), { kinds: ['agent'] });
 * ```
 */
export function agentLoopTarget(adapter: AgentLoopAdapter): ConformanceTarget {
  const claims: Claims = { protocol: PROTOCOL_VERSION, name: adapter.name, kinds: ['agent'], capabilities: [...adapter.capabilities] };
  return answering(async (request) => {
    if (request.op === 'hello') return claims;
    if (request.op === 'agent.run') return { observed: await observeAgentCase(request.case, adapter) };
    throw new Error(`an agent loop answers only hello and agent.run, not ${request.op}`);
  });
}

/**
 * A target answering with `answer`; what it throws becomes the failure reply.
 * Replies go through JSON as they would over the protocol (an undefined
 * property is left out), so this process and a port are compared alike.
 */
function answering(answer: (request: ProtocolRequest) => Promise<unknown>): ConformanceTarget {
  return {
    async request(request) {
      try {
        return JSON.parse(JSON.stringify(await answer(request))) as unknown;
      } catch (error) {
        return { failure: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}

/** Dispatches one chain request (after `chain.begin`) to the session. */
function chainRequest(
  session: ChainSession,
  request: Exclude<ProtocolRequest, RequestOf<'hello' | 'reliability.run' | 'agent.run' | 'chain.begin'>>,
): unknown {
  switch (request.op) {
    case 'chain.add':
      return session.add(request);
    case 'chain.bundle':
      return session.bundle(request);
    case 'chain.key':
      return session.key(request);
    case 'chain.contributions':
      return session.contributions(request);
    case 'chain.use':
      return session.useBuiltin(request);
    case 'chain.dispose':
      return session.dispose(request);
    case 'chain.remove':
      return session.remove(request);
    case 'chain.instrument':
      return session.instrument(request);
    case 'chain.describe':
      return session.describe(request);
    case 'chain.invoke':
      return session.invoke(request);
    case 'chain.next':
      return session.next();
    case 'chain.return':
      return session.stop('return');
    case 'chain.throw':
      return session.stop('throw');
    case 'chain.asyncDispose':
      return session.stop('asyncDispose');
    case 'chain.abort':
      return session.abort(request);
    default:
      return session.end();
  }
}
