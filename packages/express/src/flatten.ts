/** Two keys of our own, added and removed again: removing one that is not the last is what counts. */
const FIRST: unique symbol = Symbol("llm-scheduler flatten");
const SECOND: unique symbol = Symbol("llm-scheduler flatten, second");

type Flattened = { [FIRST]?: 0; [SECOND]?: 0 };

/**
 * Switches Express's `req` or `res` to dictionary properties, which V8 shares between requests, and so
 * makes every later property read and write on it a cache hit instead of a look-up from scratch.
 *
 * Why: Express swaps the prototype of Node's `req` and `res` on every request, and V8 gives an object
 * whose prototype was swapped a hidden class (map) of its own for each property added after the swap.
 * Express adds several (`res.locals`; the router's `next`, `baseUrl`, `params`, …), so every request's
 * objects have maps no earlier request had, and every property access on them (Express's, Node's, the
 * handler's and the middleware's) misses V8's caches and copies a map when it adds one. An object in
 * dictionary mode keeps one map for its prototype whatever is added later, so the caches hit from the
 * second request on. Removing a property other than the last added one is what switches an object to
 * dictionary mode; the two keys are ours, so nothing the app can see changes (own keys, their order,
 * descriptors and values stay as they were). About 170,000 fewer instructions a request on Express's
 * smallest app (BENCHMARKS.md part 4). An object that cannot be extended is left as it is.
 *
 * @example
 * flatten(req); // same properties, one shared map from here on
 */
export function flatten(object: object): void {
  if (!Object.isExtensible(object)) return;
  const keys = object as Flattened;
  keys[FIRST] = 0;
  keys[SECOND] = 0;
  delete keys[FIRST];
  delete keys[SECOND];
}
