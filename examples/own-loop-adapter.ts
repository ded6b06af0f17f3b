/**
 * The loop of examples/own-loop.ts as an agent loop adapter of the
 * conformance runner: it runs every agent case its capabilities cover and
 * reports the others as not claimed.
 *
 *   npx staged-middleware conformance --adapter examples/own-loop-adapter.ts
 *
 * Your own code takes these names from 'staged-middleware/agent' and 'staged-middleware/conformance'.
 */
import { History } from '../src/agent/index';
import type { AgentLoopAdapter } from '../conformance/index';
import { ownLoop, type Conversation } from './own-loop';

export const adapter: AgentLoopAdapter = {
  name: 'examples/own-loop.ts',
  // Its run is an AgentStreamStage invoke and it decides through TurnStage; it has no interrupts, cancel, run checks,
  // snapshots or agent view: cases needing them are not claimed.
  capabilities: ['systemPrompt', 'initialMessages', 'modelState', 'invocationState', 'rollback', 'agentStream', 'turnControl'],
  start(setup) {
    const conversation: Conversation = {
      messages: new History(setup.messages).messages, // copied and frozen once
      modelState: structuredClone(setup.modelState ?? {}), // the library freezes the state it is handed
      systemPrompt: setup.systemPrompt,
    };
    return {
      run({ input, invocationState }) {
        if (typeof input !== 'string') throw new Error('examples/own-loop.ts takes text input only');
        return ownLoop(setup.registry, setup.model, setup.tools, conversation, input, invocationState);
      },
      get messages() {
        return conversation.messages;
      },
      get modelState() {
        return conversation.modelState;
      },
      set modelState(value) {
        conversation.modelState = value;
      },
    };
  },
};
