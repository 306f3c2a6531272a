import type { Clock } from "@llm-scheduler/core";
import type { ResolvedHealth } from "./options.js";
import type { Replica } from "./replica.js";
import { getWithin, KeyedTimers } from "./timers.js";

/**
 * Active health checks and half-open probes: every `intervalMs` a healthy replica gets
 * `GET <path>` (a failure counts as one consecutive failure); an ejected one gets the same request as
 * its probe once its ejection has run out. A 2xx answer within `timeoutMs` passes.
 */
export class HealthChecks {
  readonly #options: ResolvedHealth;
  readonly #fetch: typeof fetch;
  readonly #timers: KeyedTimers<Replica>;
  readonly #running = new Set<Replica>();

  constructor(options: ResolvedHealth, fetchFn: typeof fetch, clock: Clock) {
    this.#options = options;
    this.#fetch = fetchFn;
    this.#timers = new KeyedTimers(clock);
  }

  /** Arms the next check or probe of `replica`; call it at start and whenever its health changed. */
  schedule(replica: Replica): void {
    const health = replica.health;
    if (health === undefined) return;
    const probeIn = health.probeInMs();
    const delay = probeIn ?? (this.#options.intervalMs > 0 ? this.#options.intervalMs : undefined);
    if (delay === undefined) this.#timers.cancel(replica);
    else this.#timers.arm(replica, delay, () => void this.#check(replica));
  }

  async #check(replica: Replica): Promise<void> {
    const health = replica.health;
    if (health === undefined || this.#running.has(replica)) return;
    const probe = health.healthy ? undefined : health.beginProbe();
    if (!health.healthy && probe === undefined) return this.schedule(replica);
    this.#running.add(replica);
    const response = await getWithin(
      this.#fetch,
      `${replica.url}${this.#options.path}`,
      this.#options.timeoutMs,
    );
    await response?.body?.cancel().catch(() => {});
    this.#running.delete(replica);
    const passed = response?.ok === true;
    if (probe !== undefined) probe(passed);
    else if (passed) health.success();
    else health.failure();
    this.schedule(replica);
  }

  close(): void {
    this.#timers.clear();
  }
}
