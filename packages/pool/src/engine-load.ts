import { integerIn, invalidOption, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import type { EngineSignals } from "./replica-state.js";

/** When an engine's own signals say that a replica's adaptive limit lets in more than it runs. */
export interface EngineLoadOptions {
  /** Requests in the engine's own queue it may hold before that counts as over, 0 to 1,000,000. @default 0 */
  readonly maxWaiting?: number;
  /** KV cache usage (0..1] above which the engine counts as over. @default 0.95 */
  readonly maxKvCacheUsage?: number;
}

export type ResolvedEngineLoad = Required<EngineLoadOptions>;

/** The highest load one reading may say: a cut takes at most half the limit a window anyway. */
const MAX_LOAD = 1_000;

/** Checks `signals.limit` (`path` names it in errors); `false` gives `undefined`: no feed. */
export function resolveEngineLoad(path: string, value: unknown): ResolvedEngineLoad | undefined {
  if (value === false) return undefined;
  const given = value ?? {};
  if (typeof given !== "object" || given === null) throw invalidOption(path, "an object or `false`", value);
  rejectUnknownKeys(path, given, ["maxWaiting", "maxKvCacheUsage"]);
  const { maxWaiting, maxKvCacheUsage = 0.95 } = given as EngineLoadOptions;
  if (typeof maxKvCacheUsage !== "number" || !(maxKvCacheUsage > 0 && maxKvCacheUsage <= 1)) {
    throw invalidOption(`${path}.maxKvCacheUsage`, "a number above 0, at most 1", maxKvCacheUsage);
  }
  return { maxWaiting: integerIn(`${path}.maxWaiting`, maxWaiting, 0, 1_000_000, 0), maxKvCacheUsage };
}

/**
 * The load an engine reports of itself, in the terms of a replica's adaptive limit
 * (`Scheduler.upstreamLoad`): what it holds over what it may run without queueing, `(running + waiting)
 * / (running + maxWaiting)`, or its KV cache usage over `maxKvCacheUsage`, whichever is higher. Above 1
 * it queues (a window of such readings cuts the limit to `limit / load`, where the queue would be gone);
 * at most 1 it has room (the limit may grow). An engine that queues while running nothing (its KV cache
 * is full) counts its whole queue.
 *
 * @example
 * engineLoad({ waiting: 8, running: 16, kvCacheUsage: 0.7 }, { maxWaiting: 0, maxKvCacheUsage: 0.95 }); // 1.5
 */
export function engineLoad(engine: EngineSignals, options: ResolvedEngineLoad): number {
  const { waiting, running, kvCacheUsage } = engine;
  const queue = (running + waiting) / Math.max(1, running + options.maxWaiting);
  const memory = kvCacheUsage === undefined ? 0 : kvCacheUsage / options.maxKvCacheUsage;
  return Math.min(MAX_LOAD, Math.max(queue, memory));
}
