import { createStage, MiddlewareRegistry } from '../src/core/index';

type Chunk = { type: 'text'; text: string } | { type: 'done'; text: string };
type Done = Extract<Chunk, { type: 'done' }>;

// The framework author declares a stage for one step of the loop.
const ReplyStage = createStage<{ prompt: string }, Done, Chunk>('reply', {
  isResult: (event): event is Done => event.type === 'done',
});

// Users register handlers; their types come from the stage token.
const registry = new MiddlewareRegistry();
registry.add(ReplyStage.Input, (context) => ({ prompt: context.prompt.trim() }));
registry.add(ReplyStage.Wrap, async function* logged(context, next) {
  console.log('> calling the model with', JSON.stringify(context.prompt));
  yield* next();
});
registry.add(ReplyStage.Output, (result) =>
  result.update((draft) => {
    draft.text = draft.text.toUpperCase();
  }),
);

// The framework runs its own step (the terminal) through the registry.
async function* callModel(context: { prompt: string }): AsyncGenerator<Chunk> {
  yield { type: 'text', text: 'Hello, ' };
  yield { type: 'done', text: `Hello, ${context.prompt}!` };
}

for await (const event of registry.invoke(ReplyStage, { prompt: '  world ' }, callModel)) {
  console.log(event);
}
