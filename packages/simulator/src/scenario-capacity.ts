import type { ConcurrencyRange } from "@llm-scheduler/core";
import { integerIn } from "@llm-scheduler/core/kit";
import type { CapacityOptions } from "./capacity.js";
import { filled } from "./fields.js";
import { type ScenarioCapacity, type ScenarioGateway, SECTIONS } from "./scenario.js";

/** Reads `upstream.capacity` (checked); the hard limit is at least the knee, twice it by default. */
export function capacityOf(given: ScenarioCapacity | undefined): CapacityOptions | undefined {
  if (given === undefined) return undefined;
  const { knee, hardLimit = 2 * knee, steepness, gentle, changes = [] } = filled(SECTIONS.CAPACITY, given);
  return {
    knee,
    hardLimit: integerIn("upstream.capacity.hardLimit", hardLimit, knee, 100_000),
    steepness,
    gentle,
    changes: changes.map((change) => ({ atMs: change.atMs ?? 0, scale: change.scale ?? 1 })),
  };
}

/** `gateway.maxConcurrency`, resolved. */
export interface GatewayLimit {
  /** The FIFO baseline's limit (a range's `initial`, or its `min`). */
  readonly fixed: number;
  /** What the scheduler gets. */
  readonly option: number | ConcurrencyRange;
}

/** Reads `gateway.maxConcurrency` (checked; core checks a range's bounds when the scheduler is built). */
export function gatewayLimitOf(given: ScenarioGateway["maxConcurrency"], fallback: number): GatewayLimit {
  if (typeof given !== "object") return { fixed: given ?? fallback, option: given ?? fallback };
  const { min = 1, max = fallback, initial = min } = given;
  return { fixed: initial, option: { initial, min, max } };
}
