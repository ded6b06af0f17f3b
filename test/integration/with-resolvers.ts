/**
 * `Promise.withResolvers` for the Restate SDK in an endpoint process on
 * Node.js 20 (it is built in from Node.js 22 on). Loaded with `--import`
 * before the SDK, in the test's endpoint processes only: the library never
 * needs it.
 */
interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const promises = Promise as unknown as { withResolvers?: <T>() => Resolvers<T> };
promises.withResolvers ??= function withResolvers<T>(): Resolvers<T> {
  let resolve!: Resolvers<T>['resolve'];
  let reject!: Resolvers<T>['reject'];
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
};
