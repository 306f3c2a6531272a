/** How long synchronous work may run before it lets other work (timers, other requests) go first. */
const SLICE_MS = 10;

/**
 * A function to await between steps of a long loop: it resolves at once while the current slice of
 * work is under 10 ms, and otherwise through a timer, so that timers and other requests run in
 * between (a 200 MB upload or a batch of 50,000 lines never holds the event loop for long).
 * Web standards only (`setTimeout`, `performance.now`).
 *
 * @example
 * const pause = pauser();
 * for (const line of lines) { parse(line); await pause(); }
 */
export function pauser(): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < SLICE_MS) return undefined;
    return new Promise<void>((resolve) => {
      setTimeout(() => {
        since = performance.now();
        resolve();
      }, 0);
    });
  };
}
