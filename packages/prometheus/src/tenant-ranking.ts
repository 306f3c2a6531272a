import type { MetricsSnapshot } from "@llm-scheduler/core";
import { DecayedCounts } from "./decayed-counts.js";
import { tenantLabelValue } from "./label-value.js";
import { OTHER } from "./requests-counter.js";

/**
 * Which tenants get their own label: the `top` busiest at the last scrape, by queued plus running then,
 * plus their requests started or refused, counted with exponential decay (half-life `halfLifeMs`), so
 * the ranking follows recent volume and a flood of one-shot tenants between two scrapes cannot push a
 * busy tenant out. Counts are kept for at most `2 × max(64, 4 × top)` tenants, so a client that invents
 * tenant names cannot make this grow. Label values go through `tenantLabelValue()` (valid UTF-8, one
 * per name).
 *
 * @example
 * const ranking = new TenantRanking(32, 60_000);
 * ranking.note("team-a", clock.now());
 * ranking.rank(scheduler.metrics());
 * ranking.label("team-a"); // "team-a", or "other"
 */
export class TenantRanking {
  readonly #top: number;
  readonly #counts: DecayedCounts;
  /** Labelled tenant name -> its label value. */
  #labels = new Map<string, string>();

  constructor(top: number, halfLifeMs: number) {
    this.#top = top;
    this.#counts = new DecayedCounts(halfLifeMs, Math.max(64, top * 4));
  }

  /** The label value for `tenant`: its own, or `other`. */
  label(tenant: string): string {
    return this.#labels.get(tenant) ?? OTHER;
  }

  /** Whether `tenant` has its own label now. */
  isLabelled(tenant: string): boolean {
    return this.#labels.has(tenant);
  }

  /** One request of `tenant` started or was refused at `now`. */
  note(tenant: string, now: number): void {
    this.#counts.note(tenant, now);
  }

  /** Picks the labelled tenants for the next interval; returns their label values. */
  rank(snapshot: MetricsSnapshot): ReadonlySet<string> {
    const scores = this.#counts.read(snapshot.at);
    for (const { tenant, running, queued } of snapshot.tenants) {
      scores.set(tenant, (scores.get(tenant) ?? 0) + running + queued);
    }
    scores.delete(OTHER); // a tenant named like the catch-all never gets a series of its own
    const ranked = [...scores]
      .filter(([, score]) => score > 0)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    this.#labels = new Map(ranked.slice(0, this.#top).map(([tenant]) => [tenant, tenantLabelValue(tenant)]));
    return new Set(this.#labels.values());
  }
}
