import { PRIORITY_WEIGHT, type ResolvedOptions, type ResolvedWaitTargets } from "../options.js";
import type { ResolvedPriority } from "../store.js";
import type { WaitTargetLane } from "./wait-target-lane.js";

/** A priority's share: its weight and its reserved slots. */
export interface Share {
  readonly weight: number;
  readonly reserved: number;
}

/**
 * The options the store works from: `options` (what the user configured, or what another controller
 * made of it) with each wait-target priority's weight and reserve raised by its lane, within bounds:
 * - weight from the configured one to `maxBoost` times it (and at most 1,000,000);
 * - reserved from the configured one to the smallest of the priority's `maxConcurrency`,
 *   `maxReservedShare` of `limit`, and what the other priorities' reserves leave of `limit` (so the
 *   reserves together never exceed it).
 * `limit` is the limit in force: the fixed `maxConcurrency`, or where the adaptive limit stands now (its
 * floor covers the configured reserves, so they always fit). Each lane is clamped to what was applied.
 * Pure apart from that clamp; returns `options` itself when nothing differs.
 *
 * @example
 * engine.configure(effectiveOptions(configured, lanes, settings, scheduler.maxConcurrency));
 */
export function effectiveOptions(
  options: ResolvedOptions,
  lanes: ReadonlyMap<string, WaitTargetLane>,
  settings: ResolvedWaitTargets,
  limit: number,
): ResolvedOptions {
  const maxConcurrency = limit;
  let reservedLeft = maxConcurrency - reservedTotal(options);
  let changed = false;
  const priorities = options.priorities.map((priority): ResolvedPriority => {
    const lane = lanes.get(priority.name);
    if (lane === undefined) return priority;
    const weightCap = Math.max(
      priority.weight,
      Math.min(PRIORITY_WEIGHT.max, priority.weight * settings.maxBoost),
    );
    const weight = Math.min(weightCap, priority.weight * lane.boost);
    const shareCap = Math.floor(settings.maxReservedShare * maxConcurrency);
    const reserveCap = Math.min(
      priority.maxConcurrency,
      shareCap,
      priority.reserved + Math.max(0, reservedLeft),
    );
    const reserved = Math.max(priority.reserved, Math.min(reserveCap, priority.reserved + lane.extra));
    reservedLeft -= reserved - priority.reserved;
    lane.clampTo(weight / priority.weight, reserved - priority.reserved);
    if (weight === priority.weight && reserved === priority.reserved) return priority;
    changed = true;
    return { ...priority, weight, reserved };
  });
  if (!changed) return options;
  return { ...options, priorities, priorityByName: new Map(priorities.map((p) => [p.name, p])) };
}

/** The reserved slots of every priority in `options`, together. */
export function reservedTotal(options: ResolvedOptions): number {
  return options.priorities.reduce((sum, p) => sum + p.reserved, 0);
}

/** Each priority's share in `options`, by name. */
export function sharesOf(options: ResolvedOptions): Map<string, Share> {
  return new Map(options.priorities.map((p) => [p.name, { weight: p.weight, reserved: p.reserved }]));
}
