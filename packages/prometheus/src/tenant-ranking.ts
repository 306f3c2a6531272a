import type { MetricsSnapshot } from "@llm-scheduler/core";
import { OTHER } from "./requests-counter.js";

/**
 * Which tenants get their own label: the `top` busiest at the last scrape, by queued plus running
 * then, plus requests started or refused since the scrape before. Activity is counted for at most
 * `4 × top` tenants between scrapes (the first ones seen; a heavy tenant is among them within a scrape
 * or two), so a client that invents tenant names cannot make this grow.
 *
 * @example
 * const ranking = new TenantRanking(32);
 * ranking.note("team-a");
 * ranking.rank(scheduler.metrics());
 * ranking.label("team-a"); // "team-a", or "other"
 */
export class TenantRanking {
  readonly #top: number;
  readonly #cap: number;
  #activity = new Map<string, number>();
  #labelled: ReadonlySet<string> = new Set();

  constructor(top: number) {
    this.#top = top;
    this.#cap = Math.max(64, top * 4);
  }

  /** The tenants that have their own label now. */
  get labelled(): ReadonlySet<string> {
    return this.#labelled;
  }

  /** The label value for `tenant`. */
  label(tenant: string): string {
    return this.#labelled.has(tenant) ? tenant : OTHER;
  }

  /** One request of `tenant` started or was refused. */
  note(tenant: string): void {
    const count = this.#activity.get(tenant);
    if (count !== undefined) this.#activity.set(tenant, count + 1);
    else if (this.#activity.size < this.#cap) this.#activity.set(tenant, 1);
  }

  /** Picks the labelled tenants for the next interval, from `snapshot` and the activity since the last call. */
  rank(snapshot: MetricsSnapshot): ReadonlySet<string> {
    const scores = this.#activity;
    this.#activity = new Map();
    for (const { tenant, running, queued } of snapshot.tenants) {
      scores.set(tenant, (scores.get(tenant) ?? 0) + running + queued);
    }
    scores.delete(OTHER); // a tenant named like the catch-all never gets a series of its own
    const ranked = [...scores]
      .filter(([, score]) => score > 0)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    this.#labelled = new Set(ranked.slice(0, this.#top).map(([tenant]) => tenant));
    return this.#labelled;
  }
}
