import type { LimitReason, Scheduler } from "@llm-scheduler/core";
import { Counter } from "prom-client";

/** Every reason a `limit` event can give: the label's values are known up front, so they start at 0. */
const LIMIT_REASONS: readonly LimitReason[] = [
  "increase",
  "overload",
  "latency",
  "upstream",
  "update",
  "shared",
];
/** How a `backoff` event moved a tenant's hold: cut (or started), a slot given back, or ended. */
const BACKOFF_CHANGES = ["cut", "give_back", "release"] as const;

/**
 * Counters fed by the scheduler's `limit`, `share` and `backoff` events (not registered yet), and the
 * listeners that feed them: changes of the adaptive limit by reason, changes of a wait target's
 * effective share by priority and reason, and changes of tenants' holds after their own 429s (no
 * tenant label: unbounded). The events are rare (at most one per window or cool-down), so prom-client's
 * own counters serve.
 *
 * @example
 * const adaptive = new AdaptiveCounters(scheduler, "llm_scheduler_");
 * registry.registerMetric(adaptive.limitChanges);
 * adaptive.stop();
 */
export class AdaptiveCounters {
  readonly limitChanges: Counter<"reason">;
  readonly shareChanges: Counter<"priority" | "reason">;
  readonly backoffChanges: Counter<"change">;
  readonly #stops: Array<() => void>;

  constructor(scheduler: Scheduler, prefix: string) {
    this.limitChanges = new Counter({
      name: `${prefix}limit_changes_total`,
      help: "Changes of the adaptive concurrency limit seen by this instance, by reason (increase, overload, latency, upstream, update, shared)",
      labelNames: ["reason"],
      registers: [],
    });
    for (const reason of LIMIT_REASONS) this.limitChanges.inc({ reason }, 0);
    this.shareChanges = new Counter({
      name: `${prefix}share_changes_total`,
      help: "Changes of a wait-time target's effective share on this instance, by priority and reason (above_target, under_target, limit)",
      labelNames: ["priority", "reason"],
      registers: [],
    });
    for (const [priority, metrics] of Object.entries(scheduler.metrics().priorities)) {
      if (metrics.share?.targetWaitMs == null) continue;
      for (const reason of ["above_target", "under_target", "limit"])
        this.shareChanges.inc({ priority, reason }, 0);
    }
    this.backoffChanges = new Counter({
      name: `${prefix}tenant_backoff_changes_total`,
      help: "Changes of a tenant's hold after 429s of its own, by change (cut, give_back, release)",
      labelNames: ["change"],
      registers: [],
    });
    for (const change of BACKOFF_CHANGES) this.backoffChanges.inc({ change }, 0);
    this.#stops = [
      scheduler.on("limit", (event) => this.limitChanges.inc({ reason: event.reason })),
      scheduler.on("share", (event) =>
        this.shareChanges.inc({ priority: event.priority, reason: event.reason.replace("-", "_") }),
      ),
      scheduler.on("backoff", ({ maxConcurrency, previous }) => {
        const change =
          maxConcurrency === null
            ? "release"
            : previous !== null && maxConcurrency > previous
              ? "give_back"
              : "cut";
        this.backoffChanges.inc({ change });
      }),
    ];
  }

  /** Removes the listeners. */
  stop(): void {
    for (const stop of this.#stops) stop();
  }
}
