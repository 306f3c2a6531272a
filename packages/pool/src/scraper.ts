import type { Clock } from "@llm-scheduler/core";
import { engineLoad } from "./engine-load.js";
import { parseEngineMetrics } from "./engine-metrics.js";
import type { ResolvedSignals } from "./options.js";
import type { Replica } from "./replica.js";
import { getWithin, KeyedTimers } from "./timers.js";

/** The longest metrics text read: a vLLM exposition is a few hundred KiB at most. */
const MAX_TEXT = 4 * 1024 * 1024;

/** A scrape may take this long even with a shorter interval (the next one waits for it). */
const MIN_TIMEOUT_MS = 2_000;

/**
 * Scrapes every replica's Prometheus endpoint each `intervalMs` and stores the engine's queue, batch
 * and KV usage on the replica, and feeds the engine's load to its adaptive limit (`signals.limit`);
 * `changed` runs after each scrape (held-back work may now fit).
 */
export class SignalScraper {
  readonly #options: ResolvedSignals;
  readonly #fetch: typeof fetch;
  readonly #clock: Clock;
  readonly #timers: KeyedTimers<Replica>;
  readonly #changed: () => void;

  constructor(options: ResolvedSignals, fetchFn: typeof fetch, clock: Clock, changed: () => void) {
    this.#options = options;
    this.#fetch = fetchFn;
    this.#clock = clock;
    this.#timers = new KeyedTimers(clock);
    this.#changed = changed;
  }

  start(replicas: readonly Replica[]): void {
    if (this.#options.intervalMs === 0) return;
    for (const replica of replicas) void this.#scrape(replica);
  }

  async #scrape(replica: Replica): Promise<void> {
    const { path, intervalMs } = this.#options;
    const response = await getWithin(
      this.#fetch,
      `${replica.url}${path}`,
      Math.max(intervalMs, MIN_TIMEOUT_MS),
    );
    if (response !== undefined) {
      // No answer at all keeps the last signals until they go stale; an answer without them clears them.
      let text: string | undefined;
      if (response.ok) text = await response.text().catch(() => undefined);
      else await response.body?.cancel().catch(() => {});
      const signals = text === undefined || text.length > MAX_TEXT ? undefined : parseEngineMetrics(text);
      replica.setEngine(signals, this.#clock.now());
      const limit = this.#options.limit;
      if (signals !== undefined && limit !== undefined) replica.feedLimit(engineLoad(signals, limit));
      this.#changed();
    }
    this.#timers.arm(replica, intervalMs, () => void this.#scrape(replica));
  }

  close(): void {
    this.#timers.clear();
  }
}
