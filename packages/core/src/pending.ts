type Resolve = (value: unknown) => void;

let received: Resolve | null = null;

/** The one executor every {@link pending} promise is made with: it hands its `resolve` over. */
function receive(resolve: Resolve): void {
  received = resolve;
}

/**
 * A new promise to be resolved from outside, made without a closure per promise: the Promise
 * constructor calls one shared executor, which hands the resolving function over to the
 * {@link takeResolve} call that must follow at once. Its `reject` is not kept: reject it by
 * resolving it with a rejected promise.
 *
 * @example
 * const promise = pending();
 * const resolve = takeResolve();
 * resolve(Promise.reject(new Error("no"))); // rejects `promise`
 */
export function pending(): Promise<unknown> {
  return new Promise(receive);
}

/** The resolving function of the promise {@link pending} made last (once). */
export function takeResolve(): Resolve {
  const resolve = received!;
  received = null;
  return resolve;
}
