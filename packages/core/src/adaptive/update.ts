import type { SchedulerOptions, SchedulerUpdate } from "../options.js";
import { integerIn, plainObject } from "../validate.js";

/** An update with the limit it sets apart (see {@link splitLimitUpdate}). */
export interface LimitUpdate {
  readonly update: SchedulerUpdate;
  /** The limit to go on from, when the update names one. */
  readonly setTo: number | undefined;
}

/**
 * What `update({ maxConcurrency })` means for an adaptive limit: a number sets the limit in force (an
 * integer within the current range) and adaptation goes on from there, so the range stays in the
 * options; a range replaces the bounds, and its `initial`, when given, is the limit to go on from.
 *
 * @example
 * splitLimitUpdate({ maxConcurrency: { min: 2, max: 64 } }, { maxConcurrency: 10 }); // { update: {}, setTo: 10 }
 */
export function splitLimitUpdate(current: SchedulerOptions, update: SchedulerUpdate): LimitUpdate {
  const value = plainObject("update", update).maxConcurrency;
  const range = current.maxConcurrency;
  if (typeof range === "object" && typeof value === "number") {
    const setTo = integerIn("maxConcurrency", value, range.min, range.max);
    return { update: { ...update, maxConcurrency: undefined }, setTo };
  }
  if (typeof value === "object" && value !== null) {
    const initial = (value as { initial?: unknown }).initial;
    return { update, setTo: typeof initial === "number" ? initial : undefined };
  }
  return { update, setTo: undefined };
}
