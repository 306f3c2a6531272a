/** Gives a sequence back; calling it more than once is harmless. */
export type Release = () => void;

type Waiter = (release: Release) => void;

/**
 * A fixed number of sequences handed out in FIFO order, like the running batch of an LLM server.
 * A waiter whose signal aborts leaves the line at once.
 *
 * @example
 * const slots = new Slots(2);
 * const release = await slots.acquire(signal);
 * try { await work(); } finally { release(); }
 */
export class Slots {
  readonly #capacity: number;
  readonly #waiters: Waiter[] = [];
  #active = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Sequences in use. */
  get active(): number {
    return this.#active;
  }

  /** Requests waiting for a sequence. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Whether a request arriving now would start at once. */
  get hasFree(): boolean {
    return this.#active < this.#capacity && this.#waiters.length === 0;
  }

  /**
   * Resolves with a release function once a sequence is free; rejects with the signal's reason if the
   * signal aborts first (the waiter is removed from the line at once).
   */
  acquire(signal: AbortSignal): Promise<Release> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.hasFree) {
      this.#active += 1;
      return Promise.resolve(this.#releaser());
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(waiter);
        if (index !== -1) this.#waiters.splice(index, 1);
        reject(signal.reason);
      };
      const waiter: Waiter = (release) => {
        signal.removeEventListener("abort", onAbort);
        resolve(release);
      };
      this.#waiters.push(waiter);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      if (next) next(this.#releaser());
      else this.#active -= 1;
    };
  }
}
