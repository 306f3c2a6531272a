const CAPACITY = 4_096;

/** Quantiles of the waits that started within the window, in ms; zeros when none did. */
export interface WindowQuantiles {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

/** The last 4,096 queue waits of one priority with their start times, in two fixed arrays. */
class Ring {
  readonly #at = new Float64Array(CAPACITY);
  readonly #wait = new Float64Array(CAPACITY);
  #next = 0;
  #size = 0;

  record(at: number, waitMs: number): void {
    this.#at[this.#next] = at;
    this.#wait[this.#next] = waitMs;
    this.#next = (this.#next + 1) % CAPACITY;
    this.#size = Math.min(this.#size + 1, CAPACITY);
  }

  since(from: number): number[] {
    const waits: number[] = [];
    for (let i = 0; i < this.#size; i++) {
      if (this.#at[i]! >= from) waits.push(this.#wait[i]!);
    }
    return waits;
  }
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

/**
 * Queue waits of recent starts per priority, so the page can draw p50/p95/p99 over time (the scheduler's
 * own quantiles are since its start). Fixed memory: 64 KB per priority; recording is O(1).
 *
 * @example
 * const window = new WaitWindow(10_000);
 * scheduler.on("started", (event) => window.record(event.priority, Date.now(), event.waitMs));
 * window.quantiles("interactive", Date.now());
 */
export class WaitWindow {
  readonly #windowMs: number;
  readonly #rings = new Map<string, Ring>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  record(priority: string, at: number, waitMs: number): void {
    let ring = this.#rings.get(priority);
    if (ring === undefined) {
      if (this.#rings.size >= 64) return; // priorities are configured, so this bound is never reached in use
      ring = new Ring();
      this.#rings.set(priority, ring);
    }
    ring.record(at, waitMs);
  }

  quantiles(priority: string, now: number): WindowQuantiles {
    const waits = this.#rings.get(priority)?.since(now - this.#windowMs) ?? [];
    waits.sort((a, b) => a - b);
    return {
      count: waits.length,
      p50: quantile(waits, 0.5),
      p95: quantile(waits, 0.95),
      p99: quantile(waits, 0.99),
    };
  }
}
