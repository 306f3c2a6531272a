import type { ConcurrencyRange } from "@llm-scheduler/core";
import type { CapacityChange, CapacityOptions } from "./capacity.js";
import { numberAt, objectAt } from "./fields.js";
import { invalidField } from "./scenario-error.js";

/** `upstream.capacity` in a scenario file: what the server can really take (see {@link CapacityOptions}). */
export interface ScenarioCapacity {
  /** Busy sequences past which every step slows down steeply. */
  readonly knee: number;
  /** In flight (busy and waiting inside the server) at which it answers 503. @default twice the knee */
  readonly hardLimit?: number;
  /** @default 4 */
  readonly steepness?: number;
  /** @default 0.1 */
  readonly gentle?: number;
  /** Changes of capacity mid-run: `{ atMs, scale }`, `scale` times the knee and the hard limit. */
  readonly changes?: readonly CapacityChange[];
}

const CAPACITY_KEYS = ["knee", "hardLimit", "steepness", "gentle", "changes"];
const SLOTS = { min: 1, integer: true, max: 100_000 } as const;

/** Reads `upstream.capacity`; `undefined` when the scenario has none (the server never refuses). */
export function capacityAt(value: unknown): CapacityOptions | undefined {
  if (value === undefined) return undefined;
  const raw = objectAt("upstream.capacity", value, CAPACITY_KEYS);
  if (raw.knee === undefined) throw invalidField("upstream.capacity.knee", "an integer from 1", raw.knee);
  const knee = numberAt("upstream.capacity.knee", raw.knee, 1, SLOTS);
  const hardLimit = numberAt("upstream.capacity.hardLimit", raw.hardLimit, 2 * knee, {
    ...SLOTS,
    min: knee,
  });
  const changes = raw.changes ?? [];
  if (!Array.isArray(changes)) throw invalidField("upstream.capacity.changes", "an array", changes);
  return {
    knee,
    hardLimit,
    steepness: numberAt("upstream.capacity.steepness", raw.steepness, 4, { min: 0, max: 1_000 }),
    gentle: numberAt("upstream.capacity.gentle", raw.gentle, 0.1, { min: 0, max: 1_000 }),
    changes: changes.map((change: unknown, i: number) => {
      const path = `upstream.capacity.changes[${i}]`;
      const fields = objectAt(path, change, ["atMs", "scale"]);
      return {
        atMs: numberAt(`${path}.atMs`, fields.atMs, 0, { min: 0, max: 365 * 86_400_000 }),
        scale: numberAt(`${path}.scale`, fields.scale, 1, { min: 0, exclusive: true, max: 1_000 }),
      };
    }),
  };
}

/** `gateway.maxConcurrency`: a fixed limit, or a range for the adaptive limit. */
export interface GatewayLimit {
  /** The FIFO baseline's limit (a range's `initial`, or its `min`). */
  readonly fixed: number;
  /** What the scheduler gets. */
  readonly option: number | ConcurrencyRange;
}

/** Reads `gateway.maxConcurrency` (core validates a range's bounds when the scheduler is built). */
export function gatewayLimitAt(value: unknown, fallback: number): GatewayLimit {
  if (typeof value !== "object" || value === null) {
    const fixed = numberAt("gateway.maxConcurrency", value, fallback, SLOTS);
    return { fixed, option: fixed };
  }
  const raw = objectAt("gateway.maxConcurrency", value, ["initial", "min", "max"]);
  const min = numberAt("gateway.maxConcurrency.min", raw.min, 1, SLOTS);
  const max = numberAt("gateway.maxConcurrency.max", raw.max, fallback, SLOTS);
  const initial = numberAt("gateway.maxConcurrency.initial", raw.initial, min, SLOTS);
  return { fixed: initial, option: { initial, min, max } };
}
