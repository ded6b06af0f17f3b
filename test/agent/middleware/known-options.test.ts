import { describe, expect, it } from 'vitest';
import { clearToolResults, modelCallLimit, pii, promptCaching, toolCallLimit, toolEmulator, toolSelector } from '../../../src/agent/index';
import { ScriptedModel } from '../../../src/testing/index';
import { caught } from '../../assertions';

const model = new ScriptedModel([]);

describe('the built-in middlewares that refuse unknown options', () => {
  describe('given options with keys they do not know', () => {
    it.each<[string, () => unknown, string]>([
      [
        'clearToolResults',
        () => clearToolResults({ keep: 1, clearAtLeast: 10, trigger: 5 } as never),
        '[ERR_INVALID_OPTIONS] clearToolResults(): options must be { keep?, triggerTokens?, placeholder?, excludeTools?, countTokens? }; ' +
          'unknown option clearAtLeast, trigger, got a plain object.',
      ],
      [
        'toolEmulator',
        () => toolEmulator({ model, toolNames: ['a'] } as never),
        '[ERR_INVALID_OPTIONS] toolEmulator(): options must be { model, tools?, instructions? }; unknown option toolNames, got a plain object.',
      ],
      [
        'promptCaching',
        () => promptCaching({ ttl: '1h' } as never),
        '[ERR_INVALID_OPTIONS] promptCaching(): options must be { system?, messages?, cacheType? }; unknown option ttl, got a plain object.',
      ],
      [
        'pii',
        () => pii({ input: 'redact', applyToInput: true } as never),
        '[ERR_INVALID_OPTIONS] pii(): options must be { types?, patterns?, input?, output?, toolResults? }; unknown option applyToInput, got a plain object.',
      ],
      [
        'toolSelector',
        () => toolSelector({ systemPrompt: 'Pick.' } as never),
        '[ERR_INVALID_OPTIONS] toolSelector(): options must be { maxTools?, alwaysInclude?, model?, instructions? }; unknown option systemPrompt, got a plain object.',
      ],
      [
        'modelCallLimit',
        () => modelCallLimit({ runLimit: 2, exitBehavior: 'end' } as never),
        '[ERR_INVALID_OPTIONS] modelCallLimit(): options must be { runLimit?, sessionLimit? }; unknown option exitBehavior, got a plain object.',
      ],
      [
        'toolCallLimit',
        () => toolCallLimit({ runLimit: 1, toolName: 'search' } as never),
        '[ERR_INVALID_OPTIONS] toolCallLimit(): options must be { tool?, runLimit?, sessionLimit?, onLimit? }; unknown option toolName, got a plain object.',
      ],
    ])('%s throws ERR_INVALID_OPTIONS at once, naming every unknown key', (handler, create, message) => {
      const error = caught(create);
      expect({ code: error.code, phase: error.phase, handler: error.handler, message: error.message }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        phase: 'register',
        handler,
        message,
      });
    });
  });
});
