import { setImmediate as immediate, setTimeout as timeout } from "node:timers/promises";

/**
 * Waits until `performance.now()` reaches `deadline` (milliseconds); rejects with the signal's reason
 * if it aborts first. Deadlines less than a millisecond away only yield to the event loop, so
 * sub-millisecond token times add up correctly instead of each rounding up to a timer tick.
 * The timer does not keep the process alive (the server does while it listens).
 *
 * @example
 * await waitUntil(performance.now() + 20, signal);
 */
export async function waitUntil(deadline: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  const delay = deadline - performance.now();
  if (delay >= 1) await timeout(delay, undefined, { signal, ref: false });
  // An unreferenced immediate would let the loop block in its poll phase, so this one stays referenced.
  else await immediate(undefined, { signal });
}

/**
 * Resolves when the signal aborts, never before: the body of a hung request.
 *
 * @example
 * await untilAborted(signal); // returns once the client has gone away
 */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
