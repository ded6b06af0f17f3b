import { describe, expectTypeOf, it } from 'vitest';
import type { Draft } from 'immer';
import { createStage, MiddlewareRegistry, MiddlewareResult, type DeepReadonly } from '../../src/core/index';

interface Reply {
  type: 'reply';
  text: string;
  tags: string[];
  usage: { tokens: number };
}
const ReplyStage = createStage<{ prompt: string }, Reply>('reply');
declare const registry: MiddlewareRegistry;

describe('MiddlewareResult', () => {
  describe('value', () => {
    it('is read-only all the way down', () => {
      registry.add(ReplyStage.Output, (result) => {
        expectTypeOf(result.value).toEqualTypeOf<DeepReadonly<Reply>>();
        expectTypeOf(result.value.text).toEqualTypeOf<string>();
        expectTypeOf(result.value.tags).toEqualTypeOf<readonly string[]>();
        return result;
      });
    });

    it('rejects a write to a field, an array in the value and a nested field', () => {
      registry.add(ReplyStage.Output, (result) => {
        // @ts-expect-error: the value is deep-frozen, so a field cannot be assigned
        result.value.text = 'x';
        // @ts-expect-error: an array in the value is frozen, so it has no push
        result.value.tags.push('x');
        // @ts-expect-error: a nested object is frozen too
        result.value.usage.tokens = 0;
        return result;
      });
    });

    it('is a value of the result type where only reading matters, without a cast', () => {
      registry.add(ReplyStage.Output, (result) => {
        const text: string = result.value.text;
        const usage: { tokens: number } = result.value.usage;
        expectTypeOf([text, usage]).toEqualTypeOf<(string | { tokens: number })[]>();
        return result;
      });
    });
  });

  describe('update', () => {
    it('gives a writable draft, nested arrays and objects included', () => {
      registry.add(ReplyStage.Output, (result) =>
        result.update((draft) => {
          expectTypeOf(draft).toEqualTypeOf<Draft<Reply>>();
          draft.text = draft.text.toUpperCase();
          draft.tags.push('checked');
          draft.usage.tokens += 1;
        }),
      );
    });

    it('accepts a recipe returning a plain or a read-only replacement', () => {
      registry.add(ReplyStage.Output, (result) => result.update(() => ({ type: 'reply', text: 'x', tags: [], usage: { tokens: 0 } })));
      registry.add(ReplyStage.Output, (result) => result.update(() => result.value));
      // @ts-expect-error: a replacement must be a value of the result type
      registry.add(ReplyStage.Output, (result) => result.update(() => ({ text: 'x' })));
    });
  });

  describe('replace', () => {
    it('accepts a plain value, the read-only value itself and a spread of it', () => {
      registry.add(ReplyStage.Output, (result) => result.replace({ type: 'reply', text: 'x', tags: ['a'], usage: { tokens: 1 } }));
      registry.add(ReplyStage.Output, (result) => result.replace(result.value));
      registry.add(ReplyStage.Output, (result) => result.replace({ ...result.value, text: 'x' }));
      registry.add(ReplyStage.Output, (result) => result.replace({ ...result.value, tags: [...result.value.tags, 'b'] }));
    });

    it('rejects a value of another type', () => {
      // @ts-expect-error: a replacement must be a value of the result type
      registry.add(ReplyStage.Output, (result) => result.replace({ ...result.value, text: 1 }));
      // @ts-expect-error: a replacement must be a value of the result type
      registry.add(ReplyStage.Output, (result) => result.replace('text'));
    });

    it('keeps the result type of the wrapper', () => {
      const result = new MiddlewareResult<Reply>({ type: 'reply', text: 'x', tags: [], usage: { tokens: 0 } });
      expectTypeOf(result.replace(result.value)).toEqualTypeOf<MiddlewareResult<Reply>>();
    });
  });

  describe('constructor', () => {
    it('infers the result type from a plain value', () => {
      expectTypeOf(new MiddlewareResult({ text: 'x', tags: ['a'] })).toEqualTypeOf<MiddlewareResult<{ text: string; tags: string[] }>>();
    });
  });
});
