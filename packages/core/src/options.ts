import type { ResolvedAdaptive } from "./adaptive/options.js";
import type { ResolvedWaitTargets } from "./adaptive/wait-target-options.js";
import type { PriorityOptions, SCHEDULER } from "./option-schema.js";
import type { ResolvedPreemption } from "./preemption-options.js";
import type { Resolved } from "./schema/schema.js";
import type { ResolvedPriority, StoreConfig } from "./store.js";

export {
  MAX_TOKENS,
  PRIORITY_WEIGHT,
  type PriorityOptions,
  type SchedulerOptions,
  type SchedulerUpdate,
  type TenantOptions,
} from "./option-schema.js";
export type { ResolvedPriority } from "./store.js";

/** The options that resolve to their value as given, or their default. */
type PlainKey = "unknownPriority" | "abortGraceMs" | "retryWindowMs" | "retryMemory" | "metricsTenantLimit";

/** What the scheduler works from, after defaults and validation (the store gets its {@link StoreConfig} part). */
export interface ResolvedOptions extends StoreConfig, Pick<Resolved<typeof SCHEDULER>, PlainKey> {
  /** Who may preempt whom (from the priorities' `preempts` and `preemptible`); `null` when off. */
  readonly preemption: ResolvedPreemption | null;
  /** The adaptive limit's range and tunables; `null` for a fixed limit (`maxConcurrency` is the start). */
  readonly adaptive: ResolvedAdaptive | null;
  readonly priorityByName: ReadonlyMap<string, ResolvedPriority>;
  readonly defaultPriority: string;
  readonly defaultTenant: string;
  readonly waitTargets: ResolvedWaitTargets;
}

/** The two lanes a scheduler has when none are configured. */
export function defaultPriorities(maxConcurrency: number): Record<string, PriorityOptions> {
  return {
    interactive: { weight: 5, reserved: maxConcurrency > 1 ? 1 : 0, queueTimeoutMs: 10_000, maxQueue: 1_000 },
    batch: { weight: 1, queueTimeoutMs: 600_000, maxQueue: 100_000, maxWaitMs: 60_000 },
  };
}
