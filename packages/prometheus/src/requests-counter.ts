import { type SampleValue, ScrapedMetric } from "./metric.js";

/** The tenant label value of a request from a tenant outside the top. */
export const OTHER = "other";

type ByTenant = Map<string, number>;

/**
 * `requests_total{priority,outcome}` (plus `tenant` when asked): settled requests counted in nested
 * maps, priority then outcome then tenant label, so that counting allocates nothing once a series exists.
 *
 * @example
 * const requests = new RequestsCounter("llm_scheduler_requests_total", "Requests by outcome", false);
 * requests.inc("interactive", "completed", "other");
 */
export class RequestsCounter extends ScrapedMetric {
  readonly type = "counter" as const;
  readonly #withTenant: boolean;
  #counts = new Map<string, Map<string, ByTenant>>();

  constructor(name: string, help: string, withTenant: boolean, beforeScrape?: () => void) {
    super(name, help, beforeScrape);
    this.#withTenant = withTenant;
  }

  inc(priority: string, outcome: string, tenant: string): void {
    let byOutcome = this.#counts.get(priority);
    if (byOutcome === undefined) {
      byOutcome = new Map();
      this.#counts.set(priority, byOutcome);
    }
    let byTenant = byOutcome.get(outcome);
    if (byTenant === undefined) {
      byTenant = new Map();
      byOutcome.set(outcome, byTenant);
    }
    byTenant.set(tenant, (byTenant.get(tenant) ?? 0) + 1);
  }

  /** Drops the series of tenants not in `keep` (they left the top): `other` always stays. */
  retain(keep: ReadonlySet<string>): void {
    for (const byOutcome of this.#counts.values()) {
      for (const byTenant of byOutcome.values()) {
        for (const tenant of byTenant.keys())
          if (tenant !== OTHER && !keep.has(tenant)) byTenant.delete(tenant);
      }
    }
  }

  values(): SampleValue[] {
    const values: SampleValue[] = [];
    for (const [priority, byOutcome] of this.#counts) {
      for (const [outcome, byTenant] of byOutcome) {
        for (const [tenant, value] of byTenant) {
          values.push({
            labels: this.#withTenant ? { priority, outcome, tenant } : { priority, outcome },
            value,
          });
        }
      }
    }
    return values;
  }

  reset(): void {
    this.#counts = new Map();
  }
}
