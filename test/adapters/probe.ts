import type { Scheduler } from "@llm-scheduler/core";
import type { RequestSlot } from "@llm-scheduler/express";
import type { ContractApp } from "./contract-harness.js";

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/**
 * What the contract's handlers report back to the test, whatever the framework: which requests reached
 * their handler and in what order, which saw their signal abort (and why), how many were inside their
 * streamed response at once, and how many times each permit was released.
 */
export class Probe {
  /** Request ids (`x-request-id`) in the order their handlers started. */
  readonly ran: string[] = [];
  /** Request id -> the reason its signal aborted with. */
  readonly aborted = new Map<string, unknown>();
  /** Request id -> how many times the adapter called `permit.release()`. */
  readonly releases = new Map<string, number>();
  /** Chunks each `/stream` handler sends. */
  streamChunks = 4;
  /** Pause between chunks, in milliseconds. */
  streamGapMs = 10;
  #inside = 0;
  #maxInside = 0;
  readonly #gates = new Map<string, () => void>();
  readonly #opened = new Set<string>();

  /** Called first by every handler: records the start and counts the adapter's releases of the permit. */
  enter(slot: RequestSlot): void {
    this.ran.push(slot.id);
    const { permit } = slot;
    const release = permit.release.bind(permit);
    this.releases.set(slot.id, 0);
    Object.assign(permit, {
      release: (error?: unknown) => {
        this.releases.set(slot.id, (this.releases.get(slot.id) ?? 0) + 1);
        release(error);
      },
    });
  }

  /** Most handlers that were inside their streamed response at once. */
  get maxInside(): number {
    return this.#maxInside;
  }

  /** Waits until the test calls `open(id)` (resolves "released") or the slot's signal aborts ("aborted"). */
  hold(slot: RequestSlot): Promise<"released" | "aborted"> {
    const { id, signal } = slot;
    if (this.#opened.has(id)) return Promise.resolve("released");
    return new Promise((resolve) => {
      const aborted = (): void => {
        this.#gates.delete(id);
        this.aborted.set(id, signal.reason);
        resolve("aborted");
      };
      if (signal.aborted) return aborted();
      signal.addEventListener("abort", aborted, { once: true });
      this.#gates.set(id, () => {
        signal.removeEventListener("abort", aborted);
        resolve("released");
      });
    });
  }

  /** Lets the held handler `id` answer (now, or as soon as it starts). */
  open(id: string): void {
    this.#opened.add(id);
    this.#gates.get(id)?.();
    this.#gates.delete(id);
  }

  /** Lets every held handler answer. */
  openAll(): void {
    for (const id of [...this.#gates.keys()]) this.open(id);
  }

  /**
   * The body of a slow Server-Sent Events response: `streamChunks` events `streamGapMs` apart, then
   * `[DONE]`. Counts itself inside from the first chunk until the last has been handed over; stops early
   * (recording the reason) when the slot's signal aborts.
   */
  async *sse(slot: RequestSlot): AsyncGenerator<string> {
    this.#inside++;
    this.#maxInside = Math.max(this.#maxInside, this.#inside);
    try {
      for (let index = 0; index < this.streamChunks; index++) {
        yield `data: {"index":${index}}\n\n`;
        await pause(this.streamGapMs, slot.signal);
        if (slot.signal.aborted) {
          this.aborted.set(slot.id, slot.signal.reason);
          return;
        }
      }
      yield "data: [DONE]\n\n";
    } finally {
      this.#inside--;
    }
  }
}

/** Polls `condition` every few milliseconds; fails with `what` after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Sends `GET /` to `server`, hangs up once its handler has run (`entered()`), and waits until the
 * scheduler holds no slot (at most 2 s: well before a 5 s grace); closes the server and the scheduler.
 */
export async function hangUpInHandler(
  server: ContractApp,
  scheduler: Scheduler,
  entered: () => boolean,
): Promise<void> {
  try {
    const client = new AbortController();
    const gone = server.fetch("/", { signal: client.signal }).catch(() => undefined);
    await until(entered, "the handler to run");
    client.abort();
    await gone;
    await until(() => scheduler.metrics().running === 0, "the slot to be freed", 2_000);
  } finally {
    await server.close();
    await scheduler.close({ timeoutMs: 100 });
  }
}
