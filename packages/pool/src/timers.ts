import type { Clock, TimerHandle } from "@llm-scheduler/core";

/** One timer per key on a clock, re-armable, all cleared by `clear()`: what the pool's loops share. */
export class KeyedTimers<K> {
  readonly #clock: Clock;
  readonly #handles = new Map<K, TimerHandle>();
  #closed = false;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Calls `callback` after `ms`, replacing the timer `key` had. */
  arm(key: K, ms: number, callback: () => void): void {
    if (this.#closed) return;
    this.cancel(key);
    const handle = this.#clock.setTimer(() => {
      this.#handles.delete(key);
      callback();
    }, ms);
    this.#handles.set(key, handle);
  }

  cancel(key: K): void {
    const handle = this.#handles.get(key);
    if (handle === undefined) return;
    this.#clock.clearTimer(handle);
    this.#handles.delete(key);
  }

  /** Cancels every timer; later `arm()` calls do nothing. */
  clear(): void {
    this.#closed = true;
    for (const key of [...this.#handles.keys()]) this.cancel(key);
  }
}

/** A GET of `url` within `timeoutMs`: the response, or `undefined` when it failed or timed out. */
export async function getWithin(
  fetchFn: typeof fetch,
  url: string,
  timeoutMs: number,
): Promise<Response | undefined> {
  try {
    return await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch {
    return undefined;
  }
}
