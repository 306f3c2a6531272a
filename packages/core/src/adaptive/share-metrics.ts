import type { ResolvedOptions } from "../options.js";
import type { MetricsSnapshot, PriorityMetrics } from "../stats.js";

/**
 * The snapshot with each priority's `share`: configured weight and reserve beside the effective ones
 * (what the store works from), and its wait target.
 *
 * @example
 * return withShares(reporter.metrics(closed, maxConcurrency, store.snapshot(50)), configured, effective, targets);
 */
export function withShares(
  snapshot: MetricsSnapshot,
  configured: ResolvedOptions,
  effective: ResolvedOptions,
  targets: ReadonlyMap<string, number>,
): MetricsSnapshot {
  const priorities: Record<string, PriorityMetrics> = {};
  for (const [name, metrics] of Object.entries(snapshot.priorities)) {
    const own = configured.priorityByName.get(name);
    if (own === undefined) {
      priorities[name] = metrics;
      continue;
    }
    const now = effective.priorityByName.get(name) ?? own;
    priorities[name] = {
      ...metrics,
      share: {
        weight: own.weight,
        reserved: own.reserved,
        effectiveWeight: now.weight,
        effectiveReserved: now.reserved,
        targetWaitMs: targets.get(name) ?? null,
      },
    };
  }
  return { ...snapshot, priorities };
}
